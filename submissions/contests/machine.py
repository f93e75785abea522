"""What the log itself says about its machine, against the declaration: one rule, for uploads and
streams alike. Pure (no Django), like `rules`, whose Verdict and Rule it uses.

Only a log that states its machine can be compared: the bundled C benchmark's `# machine KEY
VALUE` header lines (runner/iibench/FORMAT.md). The Java and Python iibench print no machine
facts, so their logs get "not stated", never a pass. A streamed run's client also reports the
machine when it opens the run (LiveRun.machine); the live wing's seal rule compares that with
the same functions (`memory_agrees`, `drive_kind_of`).

What each fact is compared as:
- cores: the declared total against the log's physical cores, or its logical CPUs (people count
  either);
- sockets: equal;
- memory: in GiB, within MEMORY_TOLERANCE of the declaration either way (the kernel reports a
  little less than is installed, and people write GB for GiB);
- drive kind: the kernel's rotational flag of the data directory's device (`yes`: hdd; `no`:
  nvme for an nvme* device, else ssd). A VM's or cloud's volume (vda, xvda, rbd, nbd) is
  "virtual", whatever its flag says (a VM disk often reports itself rotational): it agrees with a
  declared virtual volume, and a declared HDD or SSD beneath it is not stated. A stacked device
  (LVM's dm-*, md RAID, zram, loop) reports a flag that says nothing of the drive beneath: not
  stated.
"""

from __future__ import annotations

from dataclasses import dataclass

from submissions.contests.rule_types import Entry, Rule, RuleSet, RuleVerdict, Status
from submissions.measures.numbers import number as _n

# The log's memory may differ from the declaration by this share of it, in GiB: the kernel keeps
# 2-5% for itself (more with a crash kernel), and a declared "16 GB" may mean 16 GiB or 16e9.
MEMORY_TOLERANCE = 0.10
# Device names whose rotational flag is not the drive's: virtual and stacked block devices.
UNTOLD_DEVICES = ("vd", "xvd", "dm-", "md", "zram", "loop", "rbd", "nbd")
# Of those, the volumes a hypervisor or a cloud provider hands a machine: a virtual drive.
VIRTUAL_DEVICES = ("vd", "xvd", "rbd", "nbd")
# A declared kind the log's kind agrees with: an NVMe drive is a solid-state drive, so an entrant
# who declares "ssd" for it understates nothing; a SATA SSD declared "nvme" claims more.
AGREEING_KINDS = {"hdd": {"hdd"}, "ssd": {"ssd"}, "nvme": {"nvme", "ssd"}, "virtual": {"virtual"}}


@dataclass(frozen=True)
class Fact:
    """One machine fact, side by side: declared, and what the log says (None: not stated)."""

    name: str  # "cores", "sockets", "memory", "drive"
    declared: str
    log_says: str | None
    line: int | None  # the log's line that states it
    agrees: bool | None  # None: not stated
    note: str = ""  # why a stated value was not taken (a virtual disk)


def memory_agrees(memory_bytes: float, declared_gb: float) -> bool:
    return abs(memory_bytes / 2**30 - declared_gb) <= MEMORY_TOLERANCE * declared_gb


def drive_kind_of(device: str, rotational: str) -> str | None:
    """The drive kind the kernel's flag tells for a device, or None when it tells nothing."""
    if device.startswith(VIRTUAL_DEVICES):
        return "virtual"
    if not device or device.startswith(UNTOLD_DEVICES) or rotational not in ("yes", "no"):
        return None
    if rotational == "yes":
        return "hdd"
    return "nvme" if device.startswith("nvme") else "ssd"


def _int(stated) -> int | None:
    try:
        return int(str(stated.value))
    except (TypeError, ValueError, AttributeError):
        return None


def machine_facts(machine: dict, declared) -> list[Fact]:
    """The log's `# machine` facts (key -> Stated) beside `declared` (a DeclaredSetup)."""
    facts = []
    cores, cpus = machine.get("cores"), machine.get("cpus")
    if cores is None and cpus is None:
        facts.append(Fact("cores", _n(declared.cores), None, None, None))
    else:
        counted = {_int(stated) for stated in (cores, cpus) if stated is not None} - {None}
        shown = (
            f"{cores.value} cores ({cpus.value} logical)"
            if cores is not None and cpus is not None
            else f"{(cores or cpus).value} {'cores' if cores is not None else 'logical CPUs'}"
        )
        line = (cores or cpus).line
        facts.append(Fact("cores", _n(declared.cores), shown, line, declared.cores in counted))
    sockets = machine.get("sockets")
    facts.append(
        Fact(
            "sockets",
            _n(declared.sockets),
            str(sockets.value) if sockets else None,
            sockets.line if sockets else None,
            _int(sockets) == declared.sockets if sockets else None,
        )
    )
    memory = machine.get("memory_bytes")
    memory_bytes = _int(memory) if memory else None
    facts.append(
        Fact(
            "memory",
            f"{_n(declared.memory_gb)} GB",
            f"{memory_bytes / 2**30:.1f} GiB ({memory_bytes:,} bytes)" if memory_bytes else None,
            memory.line if memory else None,
            memory_agrees(memory_bytes, declared.memory_gb) if memory_bytes else None,
        )
    )
    facts.append(_drive_fact(machine, declared))
    return facts


def _drive_fact(machine: dict, declared) -> Fact:
    device, rotational = machine.get("data_device"), machine.get("data_device_rotational")
    declared_kind = declared.drive_kind or "not declared"
    if device is None or rotational is None:
        return Fact("drive", declared_kind, None, None, None)
    kind = drive_kind_of(str(device.value), str(rotational.value))
    said = f"{device.value}, rotational {rotational.value}"
    if kind is None:
        note = (
            f"{device.value} is a virtual or stacked device: its rotational flag does not tell "
            "the drive beneath"
        )
        return Fact("drive", declared_kind, None, rotational.line, None, note)
    if kind == "virtual" and declared.drive_kind and declared.drive_kind != "virtual":
        note = (
            f"{device.value} is a virtual volume: its rotational flag does not tell the drive "
            f"beneath, which the declaration says is {declared.drive_kind}"
        )
        return Fact("drive", declared_kind, None, rotational.line, None, note)
    agrees = declared.drive_kind in AGREEING_KINDS[kind] if declared.drive_kind else None
    return Fact("drive", declared_kind, f"{kind} ({said})", rotational.line, agrees)


def _where(fact: Fact) -> str:
    return f"line {fact.line:,}" if fact.line else "its header"


def check_machine_in_log(entry: Entry, rules: RuleSet) -> RuleVerdict:
    machine = entry.log.machine if entry.log is not None else {}
    facts = machine_facts(machine, entry.setup)
    wrong = [fact for fact in facts if fact.agrees is False]
    if wrong:
        said = "; ".join(
            f"{fact.name}: declared {fact.declared} (the entry's declaration), the log says "
            f"{fact.log_says} ({_where(fact)}, `# machine`)"
            for fact in wrong
        )
        return RuleVerdict(
            "machine_in_log",
            Status.FAIL,
            f"The log's machine is not the declared one: {said}.",
            wrong[0].line,
            "; ".join(f"{fact.name} {fact.log_says}" for fact in wrong),
            "; ".join(f"{fact.name} {fact.declared}" for fact in wrong),
        )
    stated = [fact for fact in facts if fact.agrees]
    untold = [fact for fact in facts if fact.agrees is None]
    if not stated:
        return RuleVerdict(
            "machine_in_log",
            Status.UNVERIFIED,
            "Not stated: the log does not state its machine (the bundled C benchmark prints "
            "`# machine` lines; other benchmarks do not), so the declaration is the entrant's "
            "word alone.",
        )
    agreed = ", ".join(f"{fact.name} {fact.log_says}" for fact in stated)
    message = f"The log's machine agrees with the declaration: {agreed}."
    if untold:
        names = ", ".join(
            f"{fact.name} ({fact.note})" if fact.note else fact.name for fact in untold
        )
        message += f" Not stated: {names}."
    return RuleVerdict("machine_in_log", Status.PASS, message, stated[0].line)


MACHINE_RULES: tuple[Rule, ...] = (
    Rule(
        "machine_in_log",
        "The machine the log states (cores, sockets, memory within "
        f"{MEMORY_TOLERANCE:.0%}, drive kind) is the declared one; a log that states none is "
        "'not stated', never a pass.",
        check_machine_in_log,
    ),
)
