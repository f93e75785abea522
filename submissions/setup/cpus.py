"""One machine, one name: a CPU model as entrants spell it ("AMD EPYC (virtual, 2 vCPUs)",
"Intel Xeon E5-2680 v4 @ 2.40GHz") to the model it names ("AMD EPYC", "Intel Xeon E5-2680
v4"). Only what trails the model is dropped, so the variants of one model are the spellings
that start with it, which an index on the column can find. Pure."""

from __future__ import annotations

import re

from django.db.models import Q

# A trailing note in brackets ("(virtual, 2 vCPUs)") or a clock ("@ 2.40GHz"), repeated.
TRAILING_NOTE = re.compile(r"\s*(\([^()]*\)|@\s*[\d.]+\s*[GM]Hz)\s*$", re.IGNORECASE)
# What may follow a model in one of its variants: a bracket or a clock.
VARIANT_MARKS = (" (", " @", "(", "@")


def cpu_model_name(spelled: str) -> str:
    """The model a spelling names: trailing notes and clocks dropped, spaces collapsed."""
    name = " ".join(spelled.split())
    while True:
        shorter = TRAILING_NOTE.sub("", name)
        if shorter == name or not shorter:
            return name
        name = shorter


def cpu_variants_q(spelled: str) -> Q:
    """Entries on the CPU model a spelling names, however each spelled it: the model itself or
    it followed by a note or a clock ("AMD EPYC (virtual, 2 vCPUs)"). The board's CPU filter and
    a CPU model's page both read it."""
    name = cpu_model_name(spelled)
    found = Q(cpu_model__iexact=name)
    for mark in VARIANT_MARKS:
        found |= Q(cpu_model__istartswith=name + mark)
    return found
