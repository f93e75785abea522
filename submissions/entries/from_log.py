"""The declaration fields a log states, for the entry form's "fill from my log" and the API's
preview: the entrant uploads the log first and is asked only what it does not say. Pure (no
Django): a parsed log in, {field: value} and where each came from out.

Only the bundled C benchmark states its machine and server (runner/iibench/FORMAT.md): `# machine
KEY VALUE`, `# backend`, `# server` and, on MySQL/MariaDB, `# param engine=`. The Java and
Python iibench print none of it, so their logs fill nothing. A value is taken as the log prints
it, never guessed: a virtual or stacked disk's rotational flag says nothing of the drive beneath
(contests.machine.drive_kind_of), so the drive kind stays asked there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from submissions.contests.machine import drive_kind_of
from submissions.contests.rules import RuleSet
from submissions.logparse import ParsedLog, Stated
from submissions.measures.numbers import number

# `# backend` -> the declared server family; `mysql` is MySQL, MariaDB or Percona, told apart
# by the version string the server reports.
BACKEND_FAMILIES = {"postgresql": "postgresql", "postgres": "postgresql", "sqlite": "sqlite"}
# The declaration's text fields are this long at most (Submission.server_version, cpu_model).
SERVER_VERSION_MAX = 100
CPU_MODEL_MAX = 200
# "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz": the clock the model name itself states.
MODEL_GHZ = re.compile(r"@\s*(\d+(?:\.\d+)?)\s*GHz", re.IGNORECASE)


@dataclass
class LogDeclaration:
    """The fields a log states (API names, typed as the form takes them) and, for each, the
    log's line that states it as the log prints it: "line 24: # machine cores 2"."""

    log_format: str = ""  # the log's format, for people: "iiBench C (format 3)"
    values: dict[str, object] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def take(self, name: str, value: object, line: int | None, printed: str) -> None:
        self.values[name] = value
        self.sources[name] = f"line {line:,}: {printed}" if line else printed


def declaration_from_log(parsed: ParsedLog) -> LogDeclaration:
    """What `parsed` states of the declaration; nothing for a log that states nothing."""
    found = LogDeclaration(log_format=parsed.format_label)
    _machine(found, parsed.machine)
    _server(found, parsed.parameters)
    return found


def _machine(found: LogDeclaration, machine: dict[str, Stated]) -> None:
    def printed(key: str) -> str:
        return f"# machine {key} {machine[key].value}"

    model = machine.get("cpu_model")
    if model is not None:
        text = str(model.value).strip()[:CPU_MODEL_MAX]
        found.take("cpu_model", text, model.line, printed("cpu_model"))
        clock = MODEL_GHZ.search(text)
        if clock is not None:
            found.take("cpu_ghz", float(clock[1]), model.line, printed("cpu_model"))
    # The declaration counts cores in total; a log without `cores` has its logical CPUs, which
    # people count too (contests.machine compares either).
    for key in ("cores", "cpus"):
        count = _whole(machine.get(key))
        if count:
            found.take("cores", count, machine[key].line, printed(key))
            break
    sockets = _whole(machine.get("sockets"))
    if sockets:
        found.take("sockets", sockets, machine["sockets"].line, printed("sockets"))
    memory_bytes = _whole(machine.get("memory_bytes"))
    if memory_bytes:
        # In GiB, as the machine rule compares it; the kernel keeps a little for itself, so a
        # 24 GB machine says 23.5: the entrant may round it up.
        gib = round(memory_bytes / 2**30, 1)
        found.take(
            "memory_gb",
            gib,
            machine["memory_bytes"].line,
            f"{printed('memory_bytes')} ({number(gib)} GiB)",
        )
    device, rotational = machine.get("data_device"), machine.get("data_device_rotational")
    if device is not None and rotational is not None:
        kind = drive_kind_of(str(device.value), str(rotational.value))
        if kind == "virtual":
            # A VM's or cloud's volume, whatever its rotational flag says (issue 42).
            found.take(
                "drive_kind",
                kind,
                device.line,
                f"{printed('data_device')} (a virtual volume: its rotational flag is the "
                "hypervisor's)",
            )
        elif kind is not None:
            found.take(
                "drive_kind",
                kind,
                rotational.line,
                f"{printed('data_device_rotational')} ({device.value}, line {device.line:,})",
            )


def _server(found: LogDeclaration, parameters: dict[str, Stated]) -> None:
    backend, server = parameters.get("backend"), parameters.get("server_version")
    version = str(server.value).strip() if server is not None else ""
    if backend is not None:
        family = _family(str(backend.value).strip().lower(), version)
        if family:
            printed = f"# backend {backend.value}"
            if family in ("mariadb", "percona") and server is not None:
                # `mysql` is the client library: the server's version string tells which.
                printed += f"; line {server.line:,}: # server {version}"
            found.take("server_family", family, backend.line, printed)
    if server is not None and version:
        found.take(
            "server_version", version[:SERVER_VERSION_MAX], server.line, f"# server {version}"
        )
    engine = parameters.get("engine")
    # The parser keeps `# param engine=` only where a storage engine is chosen (MySQL/MariaDB).
    if engine is not None and backend is not None and str(engine.value).strip():
        found.take(
            "storage_engine",
            str(engine.value).strip(),
            engine.line,
            f"# param engine={engine.value}",
        )


def _family(backend: str, version: str) -> str:
    if backend in BACKEND_FAMILIES:
        return BACKEND_FAMILIES[backend]
    if backend != "mysql":
        return ""
    lowered = version.lower()
    if "mariadb" in lowered:
        return "mariadb"
    if "percona" in lowered:
        return "percona"
    return "mysql"


def _whole(stated: Stated | None) -> int | None:
    if stated is None:
        return None
    try:
        return int(str(stated.value).strip())
    except ValueError:
        return None


def declaration_caps(rules: RuleSet) -> dict[str, str]:
    """The contest's caps beside the fields they limit, in words: {field: "At most 8 cores."}."""
    caps: dict[str, str] = {}
    if rules.max_sockets is not None:
        caps["sockets"] = f"The contest's cap: at most {number(rules.max_sockets)} sockets."
    if rules.max_cores is not None:
        caps["cores"] = f"The contest's cap: at most {number(rules.max_cores)} cores in total."
    if rules.max_memory_gb is not None:
        caps["memory_gb"] = f"The contest's cap: at most {number(rules.max_memory_gb)} GB."
    if rules.max_drives is not None:
        caps["drives"] = f"The contest's cap: at most {number(rules.max_drives)} drives."
    if rules.require_direct_attached:
        caps["direct_attached"] = "The contest's rule: drives directly attached."
    if not rules.raid_allowed:
        caps["raid_level"] = "The contest's rule: no RAID."
    if rules.server_rule:
        caps["server_version"] = f"The contest's rule: {rules.server_rule}."
    return caps
