"""What every track's rerun shares: the benchmark's command line, the plan a rerun is made
from, what it measured, and the verdict vocabulary. Each track's own package says which runs
a rerun of it makes (`steps`), why one cannot run (`refusal`) and how its output is judged
against the claim (`judge`); the runner only starts processes, watches them, stores what they
printed and calls these. Pure: plain data in, plain data out.

The verdicts (README "What a rerun's verdict means"):
- reproduced: same engine and configuration, at the named scale, every repeat agreeing;
- shape_only: same engine and configuration, the host not comparable: the curve's shape
  matches, its absolute rates were not compared;
- not_reproduced: the figure that fails is named;
- comparison: another engine or configuration ran: never a verification;
- inconclusive: the rerun cannot say (and the message says why).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from submissions.logparse import parse_log
from submissions.logparse.model import ParsedLog

REPRODUCED = "reproduced"
SHAPE_ONLY = "shape_only"
# A rerun's result key: why its server's memory was not the claim's RAM scaled (the worker
# sets it where a PostgreSQL server got no memory cgroup: its page cache then holds the whole
# table and no cliff can appear, docs/scaling.md). A judge then compares the shape only.
MEMORY_UNBOUNDED = "memory_unbounded"
NOT_REPRODUCED = "not_reproduced"
COMPARISON = "comparison"
INCONCLUSIVE = "inconclusive"
RERUN_VERDICTS = {
    REPRODUCED: "Reproduced",
    SHAPE_ONLY: "Shape only",
    NOT_REPRODUCED: "Not reproduced",
    COMPARISON: "Comparison",
    INCONCLUSIVE: "Inconclusive",
}

VERIFICATION = "verification"
COMPARISON_RUN = "comparison"  # a rerun's kind: another engine or configuration

# Past this many times smaller than the claim, a rerun says so in its message.
SCALE_WORTH_SAYING = 10


# --- the benchmark's command line -----------------------------------------------------------


@dataclass(frozen=True)
class RunPlan:
    binary: str
    db_url: str
    rows: int
    rows_per_commit: int
    rows_per_insert: int
    seed: int
    engine: str | None = None
    # The seeds' other workloads (README "Other workloads"); None/0 leaves the C default.
    report_every: int | None = None
    delete_after: int = 0
    query_threads: int = 0
    pk: str | None = None
    writers: int = 1
    readers: int = 0
    reader_pause_ms: int | None = None
    max_rate: int = 0


def report_every(rows: int) -> int:
    """Often enough for a live curve (about 100 points) without flooding the database."""
    return max(1_000, rows // 100)


def benchmark_arguments(plan: RunPlan) -> list[str]:
    arguments = [
        plan.binary,
        "--db",
        plan.db_url,
        "--rows",
        str(plan.rows),
        "--rows-per-commit",
        str(plan.rows_per_commit),
        "--rows-per-insert",
        str(min(plan.rows_per_insert, plan.rows_per_commit)),
        "--report-every",
        str(plan.report_every or report_every(plan.rows)),
        "--seed",
        str(plan.seed),
    ]
    if plan.engine:
        arguments += ["--engine", plan.engine]
    return arguments + _workload_arguments(plan)


def _workload_arguments(plan: RunPlan) -> list[str]:
    # Only what differs from the C defaults, so a classic rerun's command line stays the
    # classic one.
    optional = [
        ("--delete-after", plan.delete_after, plan.delete_after > 0),
        ("--query-threads", plan.query_threads, plan.query_threads > 0),
        ("--pk", plan.pk, plan.pk is not None),
        ("--writers", plan.writers, plan.writers != 1),
        ("--readers", plan.readers, plan.readers > 0),
        ("--reader-pause-ms", plan.reader_pause_ms, plan.reader_pause_ms is not None),
        ("--max-rate", plan.max_rate, plan.max_rate > 0),
    ]
    return [text for flag, value, wanted in optional if wanted for text in (flag, str(value))]


@dataclass(frozen=True)
class LoadPlan:
    """`iibench load`: seed 003's bulk load of generated rows with the keys in place."""

    binary: str
    db_url: str
    keys: int
    row_length: int
    rows: int
    seed: int
    out_dir: str
    engine: str | None = None


def load_arguments(plan: LoadPlan) -> list[str]:
    # --out keeps the generated file in the rerun's own folder: `load` does not catch
    # signals, so a cancelled load would leave a temporary directory behind; ours is removed.
    arguments = [
        plan.binary,
        "load",
        "--db",
        plan.db_url,
        "--keys",
        str(plan.keys),
        "--row-length",
        str(plan.row_length),
        "--rows",
        str(plan.rows),
        "--seed",
        str(plan.seed),
        "--out",
        plan.out_dir,
    ]
    if plan.engine:
        arguments += ["--engine", plan.engine]
    return arguments


# What entrants call an engine -> the name MariaDB's ENGINE= takes.
ENGINE_ALIASES = {"myrocks": "rocksdb"}


def engine_for(declared_engine: str, supported: list[str]) -> str | None:
    """The entry's storage engine when the target has it (InnoDB, MyISAM, ROCKSDB for
    MyRocks...), else None (the target's default)."""
    wanted = declared_engine.strip().lower()
    wanted = ENGINE_ALIASES.get(wanted, wanted)
    return next((engine for engine in supported if engine.lower() == wanted), None)


def server_family(url: str, server: str = "") -> str:
    """mariadb, postgresql or sqlite: what a target runs, from its URL (or its private
    server's kind)."""
    if server:
        return server
    scheme = url.split(":", 1)[0].lower()
    if scheme in ("mysql", "mariadb"):
        return "mariadb"
    if scheme.startswith("postgres"):
        return "postgresql"
    return scheme


# --- a rerun's plan ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TargetOptions:
    """How a target scales the seeds' concurrency down (seed 004 ran 10 writers, 100 readers)."""

    writers: int = 2
    readers: int = 2
    query_threads: int = 1


@dataclass(frozen=True)
class RerunSpec:
    plan: RunPlan  # the classic run at the rerun's rows, against the target
    figures: dict  # the entry's track figures (Submission.track_figures)
    claimed_rows: int  # the rows of the entry's own run
    options: TargetOptions = TargetOptions()
    scratch_dir: str = ""  # where `load` writes its data file


@dataclass(frozen=True)
class Step:
    name: str  # stored with the run and its samples: "insert", "uuid-char", "load"...
    description: str  # for people: "Step 2 of 3: ..."
    arguments: list[str]
    rows: int


class NotPlannable(ValueError):
    """The entry does not state what this workload's rerun needs (the message says what)."""


@dataclass(frozen=True)
class RerunRequest:
    """What a rerun is asked to do, checked before it is queued: the organizer reads why it
    cannot run at once rather than in a failed run."""

    figures: dict
    claimed_rows: int
    rows: int
    time_limit: int


# --- what a rerun measured and how it compares ------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """What the entry claims, as the rerun started: its track figures, the rows of its run and,
    for a track with a curve, the curve itself (rows and seconds at each report)."""

    figures: dict
    rows: int
    curve_rows: object = None  # numpy arrays, or None without a curve
    curve_seconds: object = None
    engine: str = ""
    curve_read_ops: object = None  # device reads in each report's interval, where counted
    curve_server_cpu: object = None  # the server's CPU seconds in each interval, where counted
    server_version: str = ""  # as the claim's log names its server, else as declared


@dataclass(frozen=True)
class RerunOutput:
    """One finished repeat of a rerun: each step's parsed output, what a procedure that is not
    a list of runs (crash recovery) measured itself, and the plan it ran."""

    logs: dict[str, ParsedLog]
    spec: RerunSpec
    rows_target: int
    result: dict = field(default_factory=dict)


def read_output(
    step_logs: Mapping[str, str], *, spec: RerunSpec, rows_target: int, result: dict | None = None
) -> RerunOutput:
    """Parse each step's output with the registry's own parser. Raises LogError. The steal
    time the worker measured beside the repeat (its `# rerun steal` lines) joins its result."""
    logs = {name: parse_log(io.BytesIO(text.encode())) for name, text in step_logs.items()}
    found = dict(result or {})
    steal = [stolen for text in step_logs.values() for stolen in stated_steal(text)]
    if steal:
        found[STEAL_CORES] = max(steal)
    waits = [wait for text in step_logs.values() for wait in stated_cpu_wait(text)]
    if waits:
        found[CPU_WAIT] = max(waits)
    shares = [x for text in step_logs.values() if (x := stated_other_io_share(text)) is not None]
    if shares:
        found[OTHER_IO_SHARE] = max(shares)
    paths = [path for text in step_logs.values() if (path := stated_path_wait(text)) is not None]
    if paths:
        found[PATH_WAIT] = max(paths)
    critical = [stated_critical_cpu(text) for text in step_logs.values()]
    if critical and all(each is not None for each in critical):
        found[CRITICAL_CPU] = sum(critical)
    return RerunOutput(logs, spec, rows_target, found)


@dataclass(frozen=True)
class Comparison:
    verdict: str
    ratio: float | None
    message: str


@dataclass(frozen=True)
class Judgement:
    """The verdict on a rerun (all its repeats), its message, and what it measured in the keys
    of the entry's track figures, with the progress figures the run's row shows."""

    verdict: str
    ratio: float | None
    message: str
    result: dict = field(default_factory=dict)
    rows_done: int = 0
    rate: float | None = None


# judge(claim, reruns, *, kind, scale, host_comparable, tolerance) -> Judgement
Judge = Callable[..., Judgement]


@dataclass(frozen=True)
class CrashPlan:
    """A crash-recovery procedure: a throttled run against a private server, killed once a
    report shows `crash_at_rows`, then restarted and timed."""

    max_rate: int  # the entry's insert rate, rows/s
    crash_at_rows: int  # the server is killed once a report shows this many rows
    insert_rows: int  # what the benchmark is asked for: more, so it is inserting when killed
    report_every: int

    @property
    def expected_seconds(self) -> float:
        return self.crash_at_rows / self.max_rate

    def insert_arguments(self, plan: RunPlan) -> list[str]:
        """The throttled run against the private server (plan.db_url is the server's)."""
        throttled = replace(
            plan, rows=self.insert_rows, report_every=self.report_every, max_rate=self.max_rate
        )
        return benchmark_arguments(throttled)


@dataclass(frozen=True)
class Rerun:
    """How a track is rerun. `procedure`: "steps" (benchmark runs one after another, from
    `steps`) or "crash" (a private server killed and restarted: the runner's crash
    procedure, planned by `crash_plan`). `private_server`: it runs only on a target whose
    server the worker starts itself."""

    judge: Judge
    steps: Callable[[RerunSpec], list[Step]] | None = None
    refusal: Callable[[RerunRequest], str | None] = lambda request: None
    procedure: str = "steps"
    private_server: bool = False
    crash_plan: Callable[[dict, int], CrashPlan] | None = None
    # Its judge compares the curve's shape past the memory cliff, which the scaling rule keeps:
    # a verification outside the rule's measured range is then extrapolated (setup.scaling).
    # The other tracks compare speeds at any scale and say how much smaller the rerun was.
    shape_scaled: bool = False
    # Its judge takes the host's measured spreads (`spreads=`, a resolution.HostSpreads):
    # the runner then passes the host's calibration (runner/calibration.py).
    calibrated: bool = False


# --- small helpers the judges share -----------------------------------------------------------


def speed_verdict(ratio: float, tolerance: float, slower: str = "slower") -> tuple[str, str]:
    if ratio >= 1.0 - tolerance:
        return REPRODUCED, "reproduced"
    return NOT_REPRODUCED, f"not reproduced: more than {tolerance:.0%} {slower} than claimed"


def scale_caveat(factor: float, what: str) -> str:
    if factor < SCALE_WORTH_SAYING:
        return ""
    return (
        f" The rerun is {factor:,.0f}x smaller than the claim, and {what}: at this scale a "
        "reproduced verdict says the claim is plausible, a not-reproduced one is strong "
        "evidence against it."
    )


def mapping(value: object) -> dict:
    """The figures are JSON someone computed or declared: a part that is not an object is
    treated as absent, never trusted."""
    return value if isinstance(value, dict) else {}


def positive(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number > 0 else None


def pairs(value: object) -> list[tuple[float, float]]:
    """[[rows, seconds], ...] with both positive numbers; anything else is left out."""
    if not isinstance(value, list):
        return []
    found = []
    for item in value:
        if isinstance(item, list | tuple) and len(item) == 2:
            rows, seconds = positive(item[0]), positive(item[1])
            if rows is not None and seconds is not None:
                found.append((rows, seconds))
    return sorted(found)


def combine(
    comparisons: list[Comparison],
    *,
    kind: str,
    host_comparable: bool,
    absolute: bool = True,
    closeness: Callable[[float], float] = lambda ratio: ratio,
) -> Comparison:
    """One verdict from the repeats of a rerun compared one by one with the claim.

    Repeats: the claim must lie within the reruns' range widened by the tolerance, which for
    a one-sided speed comparison ("no slower than claimed") means the best repeat reproduces
    it (`closeness` says which repeat is best: the fastest, or for a shape the nearest); the
    spread of the repeats is named in the message. A comparison run never verifies; on a host not comparable
    with the entry's, an absolute figure (`absolute`) cannot verify either."""
    if not comparisons:
        return Comparison(INCONCLUSIVE, None, "The rerun finished no repeat to compare.")
    decided = [each for each in comparisons if each.verdict != INCONCLUSIVE]
    if not decided:
        return comparisons[0]
    best = max(
        decided, key=lambda each: closeness(each.ratio) if each.ratio is not None else -math.inf
    )
    message = best.message
    if len(comparisons) > 1:
        ratios = [each.ratio for each in decided if each.ratio is not None]
        message = (
            f"{len(comparisons)} repeats, ratios {min(ratios):.2f} to {max(ratios):.2f}; the "
            f"best: {message}"
        )
    if kind == COMPARISON_RUN:
        return Comparison(
            COMPARISON,
            best.ratio,
            "Comparison run (another engine or configuration than the entry's): it compares "
            f"the engines, never verifies the claim. {message}",
        )
    if absolute and not host_comparable and best.verdict == REPRODUCED:
        return Comparison(
            INCONCLUSIVE,
            best.ratio,
            "The rerun's host is not comparable with the entry's declared hardware, and this "
            f"track's figure is an absolute speed: it cannot verify the claim. {message}",
        )
    if not absolute and not host_comparable and best.verdict == REPRODUCED:
        return Comparison(SHAPE_ONLY, best.ratio, message)
    return Comparison(best.verdict, best.ratio, message)


# --- the server's version ---------------------------------------------------------------------


def server_major(text: str) -> tuple[str, str] | None:
    """(family, major version) of a server as a log or a declaration names it: "10.11.19-MariaDB"
    -> ("MariaDB", "10.11"), "5.1.25-rc" -> ("MySQL", "5.1"), "PostgreSQL 15.20" ->
    ("PostgreSQL", "15"); None when it names no version."""
    lowered = text.lower()
    found = re.search(r"(\d+)\.(\d+)", text)
    if found is None:
        return None
    major, minor = int(found.group(1)), int(found.group(2))
    if "postgres" in lowered:
        return "PostgreSQL", str(major) if major >= 10 else f"{major}.{minor}"
    if "mariadb" in lowered or major >= 10:
        return "MariaDB", f"{major}.{minor}"
    if "sqlite" in lowered or major == 3:
        return "SQLite", str(major)
    return "MySQL", f"{major}.{minor}"


def other_server(claimed: str, rerun: str) -> str:
    """A sentence when the rerun ran another server or major version than the claim's (MariaDB
    10.11 for MySQL 5.1): then at best its shape is verified; "" when the same, or unknown."""
    claim, ran = server_major(claimed), server_major(rerun)
    if claim is None or ran is None or claim == ran:
        return ""
    return (
        f"The claim ran {' '.join(claim)}, these runs {' '.join(ran)}: another major version, "
        "whose rates are not the claim's server's, so at best the shape is verified."
    )


# --- reading a parsed output -------------------------------------------------------------------


def column(values) -> np.ndarray | None:
    """A parsed log's column as numpy, without copying (a float32-held rate as float64)."""
    if values is None:
        return None
    found = np.frombuffer(values, dtype=values.typecode)
    return found.astype(np.float64) if found.dtype == np.float32 else found


def curve(parsed: ParsedLog) -> tuple[np.ndarray, np.ndarray]:
    """Rows and seconds at each report."""
    return column(parsed.series.rows), column(parsed.series.seconds)


def stated(parsed: ParsedLog, name: str, default: int = 0) -> int:
    """A parameter the benchmark's header states (`query_threads=2`)."""
    found = parsed.parameters.get(name)
    return int(found.value) if found is not None else default


# A rerun's host was busy when work other than the benchmark and its server kept this many of its
# cores busy on average over the run. Measured here (MariaDB, 300,000 rows at 1/10, 2 cores):
# quiet reruns -0.02 to 0.01 cores, one beside a short test run 0.18; two beside a CPU-bound
# process 0.99 and 1.27 (the second ran 20% slower than the quiet ones' median).
BUSY_CORES = 0.5

# The cores the hypervisor gave other guests during a repeat, as the worker measured them
# beside it from /proc/stat (runner/host.py): a line of the step's log, a key of its result.
STEAL_CORES = "steal_cores"
STEAL_LINE = "# rerun steal cores="
_STEAL = re.compile(r"^# rerun steal cores=([0-9.]+)", re.MULTILINE)


def steal_line(cores: float) -> str:
    return f"{STEAL_LINE}{cores:.3f} (CPU time the hypervisor gave other guests)\n"


def stated_steal(text: str) -> list[float]:
    return [float(found) for found in _STEAL.findall(text)]


CPU_WAIT = "cpu_wait"  # the share of a run its server's busiest thread waited for a CPU
CPU_WAIT_LINE = "# rerun cpu wait seconds="
_CPU_WAIT = re.compile(r"^# rerun cpu wait seconds=([0-9.]+) of=([0-9.]+)", re.MULTILINE)


def cpu_wait_line(seconds: float, of: float) -> str:
    return (
        f"{CPU_WAIT_LINE}{seconds:.3f} of={of:.3f} (the server's thread that waited longest "
        "for a CPU while runnable, over the run's wall seconds)\n"
    )


CLIENT_WAIT_LINE = "# rerun client wait seconds="
_CLIENT_WAIT = re.compile(r"^# rerun client wait seconds=([0-9.]+) of=([0-9.]+)", re.MULTILINE)
# The share of a repeat the benchmark's threads and its server's busiest thread waited for a
# CPU: one writer waits for its statement, so those waits lie end to end on its critical path.
PATH_WAIT = "path_wait"


def client_wait_line(seconds: float, of: float) -> str:
    return (
        f"{CLIENT_WAIT_LINE}{seconds:.3f} of={of:.3f} (the benchmark's threads' time waiting for "
        "a CPU while runnable, over the run's wall seconds)\n"
    )


def stated_path_wait(text: str) -> float | None:
    """The share of a step its writer's path waited for a CPU: its `# rerun client wait` and
    `# rerun cpu wait` lines added up, None without both."""
    client, server = _CLIENT_WAIT.findall(text), _CPU_WAIT.findall(text)
    if not client or not server:
        return None
    waited = sum(float(wait) for wait, _ in client) + sum(float(wait) for wait, _ in server)
    of = sum(float(each) for _, each in server)
    return waited / of if of > 0 else None


# Other processes' disk bytes over the private server's own, the most of any step
# (runner/activity.py's `# rerun other io` line, where it states the server's own).
OTHER_IO_SHARE = "other_io_share"
_OTHER_IO_OWN = re.compile(r"^# rerun other io bytes=(\d+) seconds=[0-9.]+ own=(\d+)", re.MULTILINE)


def stated_other_io_share(text: str) -> float | None:
    """The most bytes other processes moved on the disk during a step, over the private
    server's own (None: not stated, or the server moved none)."""
    found = [int(other) / int(own) for other, own in _OTHER_IO_OWN.findall(text) if int(own)]
    return max(found) if found else None


CRITICAL_CPU = "critical_cpu"  # CPU seconds of the benchmark and its server's busiest thread
CRITICAL_CPU_LINE = "# rerun critical cpu seconds="
_CRITICAL_CPU = re.compile(r"^# rerun critical cpu seconds=([0-9.]+)", re.MULTILINE)


def critical_cpu_line(client: float, server: float) -> str:
    return (
        f"{CRITICAL_CPU_LINE}{client + server:.3f} client={client:.3f} server={server:.3f} (CPU "
        "seconds of the benchmark's threads and of its server's busiest thread: one writer "
        "waits for its statement, so the run took at least their sum)\n"
    )


def stated_critical_cpu(text: str) -> float | None:
    """The CPU seconds a step's `# rerun critical cpu` lines state, None without one."""
    found = [float(each) for each in _CRITICAL_CPU.findall(text)]
    return sum(found) if found else None


def stated_cpu_wait(text: str) -> list[float]:
    """Each `# rerun cpu wait` line of a log, as a share of its run."""
    return [float(wait) / float(of) for wait, of in _CPU_WAIT.findall(text) if float(of) > 0]


def other_work(parsed: ParsedLog, steal_cores: float | None = None) -> float | None:
    """The cores that work other than the benchmark and its server kept busy during a run, on
    average: the machine's busy CPU less the client's and the server's (format 3), plus the
    steal time (`steal_cores`: CPU the hypervisor gave other guests, which the benchmark's
    machine CPU does not count; on a VM it slows a rerun as other work does). None when nothing
    measured the machine's CPU."""
    series = parsed.series
    machine = column(series.machine_cpu_s)
    client, server = column(series.client_cpu_s), column(series.server_cpu_s)
    stolen = steal_cores or 0.0
    if machine is None or client is None or server is None:
        return steal_cores
    seconds = column(series.seconds)
    spans = np.diff(seconds, prepend=0.0)
    measured = np.isfinite(machine) & np.isfinite(client) & np.isfinite(server) & (spans > 0)
    if not measured.any():
        return steal_cores
    other = machine[measured] - client[measured] - server[measured]
    return float(other.sum() / spans[measured].sum()) + stolen


def progress(parsed: ParsedLog) -> tuple[int, float | None]:
    """Rows done and the average rate of a step, for the run's row."""
    rows, seconds = curve(parsed)
    done = int(rows[-1]) if len(rows) else 0
    return done, (done / float(seconds[-1]) if len(rows) and seconds[-1] > 0 else None)


@dataclass(frozen=True)
class Repeat:
    """One repeat judged on its own: its comparison with the claim, what it measured (in the
    keys of the track's figures) and the progress the run's row shows."""

    comparison: Comparison
    result: dict = field(default_factory=dict)
    rows_done: int = 0
    rate: float | None = None


def repeat_of(comparison: Comparison, result: dict, output: RerunOutput) -> Repeat:
    """A repeat whose progress is its last step's."""
    rows_done, rate = progress(list(output.logs.values())[-1]) if output.logs else (0, None)
    return Repeat(comparison, dict(result), rows_done, rate)


# --- what a verification could refute ---------------------------------------------------------


@dataclass(frozen=True)
class StatedResolution:
    """The smallest lie a track's verification could refute, in the classic judge's keys
    (`too_fast_factor`; `cliff_shift` is None: these tracks judge no cliff). None for the factor
    when the track measures none, `basis` then saying why ("not stated")."""

    too_fast_factor: float | None
    basis: str  # what the factor was judged by, or why none is stated

    def as_dict(self) -> dict:
        factor = self.too_fast_factor
        return {
            "too_fast_factor": None if factor is None else round(factor, 2),
            "cliff_shift": None,
            "basis": self.basis,
        }

    def text(self) -> str:
        if self.too_fast_factor is None:
            return f"Resolution not stated: {self.basis}."
        return (
            f"This verification would have refuted a claim {self.too_fast_factor:.2f}x too "
            f"fast ({self.basis}); this track judges no cliff."
        )


# resolution(repeats, tolerance) -> StatedResolution
ResolutionOf = Callable[[list[Repeat], float], StatedResolution]


def speed_resolution(figure: str) -> ResolutionOf:
    """For a track judged by a speed ratio (the rerun's over the claim's, above 1 the rerun did
    better; reproduced when the best repeat is within the tolerance): a claim `f` times faster
    than the repeats' median divides every ratio by `f`, so it is refuted once
    f > best / median / (1 - tolerance)."""

    def resolution(repeats: list[Repeat], tolerance: float) -> StatedResolution:
        ratios = [each.comparison.ratio for each in repeats]
        ratios = [each for each in ratios if each is not None and each > 0]
        if not ratios:
            return StatedResolution(None, "no repeat measured the figure")
        factor = max(ratios) / float(np.median(ratios)) / (1 - tolerance)
        return StatedResolution(factor, f"{figure} against these runs', within {tolerance:.0%}")

    return resolution


def judge_repeats(
    reruns: list[RerunOutput],
    judge_one: Callable[[RerunOutput], Repeat],
    *,
    kind: str,
    host_comparable: bool,
    absolute: bool = True,
    closeness: Callable[[float], float] = lambda ratio: ratio,
    resolution: Callable[[list[Repeat]], StatedResolution] | None = None,
) -> Judgement:
    """Every track's judge: each repeat compared with the claim on its own (`judge_one`), then
    one verdict from all of them (`combine`: the spread, the kind, the host), with what the
    last repeat measured and its progress; with `resolution`, what it could have refuted,
    said after the message and in the result's `resolution`."""
    repeats = [judge_one(output) for output in reruns]
    verdict = combine(
        [each.comparison for each in repeats],
        kind=kind,
        host_comparable=host_comparable,
        absolute=absolute,
        closeness=closeness,
    )
    if not repeats:
        return Judgement(verdict.verdict, verdict.ratio, verdict.message)
    last = repeats[-1]
    result, message = dict(last.result), verdict.message
    if resolution is not None and verdict.verdict != INCONCLUSIVE:
        stated = resolution(repeats)
        result["resolution"] = stated.as_dict()
        message = f"{message} {stated.text()}"
    return Judgement(verdict.verdict, verdict.ratio, message, result, last.rows_done, last.rate)


def judge_each_repeat(
    judge_one: Callable[[Claim, RerunOutput, float], Repeat],
    *,
    absolute: bool = True,
    closeness: Callable[[float], float] = lambda ratio: ratio,
    resolution: ResolutionOf | None = None,
) -> Callable[..., Judgement]:
    """A track's judge, from how it compares one repeat with the claim (`judge_one(claim,
    output, tolerance)`): every repeat judged alike, then together (`judge_repeats`). A shape
    rather than a speed (`absolute=False`) still says something on a host unlike the entry's.
    `resolution`: what the verification could have refuted (`speed_resolution`)."""

    def judge(
        claim: Claim,
        reruns: list[RerunOutput],
        *,
        kind: str,
        scale: float | None = None,
        host_comparable: bool = True,
        tolerance: float,
    ) -> Judgement:
        return judge_repeats(
            reruns,
            lambda output: judge_one(claim, output, tolerance),
            kind=kind,
            host_comparable=host_comparable,
            absolute=absolute,
            closeness=closeness,
            resolution=None
            if resolution is None
            else lambda repeats: resolution(repeats, tolerance),
        )

    return judge
