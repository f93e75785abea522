"""An entry declaring every hostile setting of issue 26, verified through a real worker on a
real private server: the run finishes; nothing appears outside the server's own directory
(every hostile path points into a folder this test watches); the server runs as the
unprivileged user in its memory cgroup; oversized memory is read back scaled and capped; the
log and the verdict name each setting refused, scaled or capped."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from runner import services
from runner.cgroups import cgroup_of
from runner.models import RerunStatus
from submissions.entries import services as entry_services
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory
from testing.logs import python_log
from testing.worker import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

GIB = 1 << 30
CGROUP_ROOTS = ("/sys/fs/cgroup/memory", "/sys/fs/cgroup")


@pytest.fixture
def watched():
    """A folder under /tmp (short: sockets) whose every file is compared before and after; the
    servers' directories go in its `servers/`, so `../../../` from a data directory is it."""
    folder = Path(tempfile.mkdtemp(prefix="h-", dir="/tmp"))
    os.chmod(folder, 0o755)  # noqa: S103 - the servers' users must reach their directories
    (folder / "servers").mkdir(mode=0o755)
    (folder / "target").mkdir(mode=0o777)  # writable by anyone: a setting that slips through
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def every_file(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


REFERENCE_SERVER = re.compile(r"v\d+r-")


class ServerWatch:
    """Samples the processes whose command line names the watched folder, while the run goes:
    their uid and memory cgroup, and the cgroup's limit."""

    def __init__(self, folder: Path):
        self.folder = str(folder)
        self.seen: dict[int, tuple[str, int, str]] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while not self.done.wait(0.05):
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit() or int(entry.name) in self.seen:
                    continue
                try:
                    command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                    program = command.split()[0] if command.strip() else ""
                    if self.folder not in command or not program.endswith(
                        ("mariadbd", "/postgres")
                    ):
                        continue  # the server itself, not the benchmark or a probe
                    uid = int(
                        next(
                            line.split()[1]
                            for line in (entry / "status").read_text().splitlines()
                            if line.startswith("Uid:")
                        )
                    )
                    # mariadb-install-db's bootstrap server, not the rerun's: it makes the
                    # system tables with its own fixed options, outside the server's cgroup.
                    bootstrap = " --bootstrap" if " --bootstrap" in command else ""
                    # The verification's reference server (runner/reference_runs.py, label
                    # v<run>r): fixed settings, its pool bounding its memory, no cgroup of its own.
                    if REFERENCE_SERVER.search(command):
                        bootstrap += " (reference)"
                    self.seen[int(entry.name)] = (
                        command.split()[0] + bootstrap,
                        uid,
                        cgroup_of(int(entry.name)),
                    )
                except (OSError, StopIteration):
                    continue

    def stop(self) -> dict[int, tuple[str, int, str]]:
        self.done.set()
        self.thread.join()
        return self.seen


def verify(entry, organizer, target: str, folder: Path):
    before = every_file(folder)
    watch = ServerWatch(folder)
    run = services.rerun_start(
        submission=entry, target=target, scale=100, repeats=1, requested_by=organizer
    )
    run = wait_for(run, finished, timeout=90)
    seen = watch.stop()
    assert run.status == RerunStatus.SUCCEEDED, f"{run.message}\n{run.log[:4000]}"
    # The server's directory was removed with everything it wrote; nothing else appeared.
    assert every_file(folder) == before, every_file(folder) - before
    # Its cgroup went with it. (mariadb-install-db's bootstrap ran in the worker's own.)
    for program, _, cgroup in seen.values():
        if program.endswith(("--bootstrap", "(reference)")):
            assert cgroup == cgroup_of(os.getpid()), cgroup
            continue
        assert not any(Path(root, cgroup.lstrip("/")).exists() for root in CGROUP_ROOTS), cgroup
    print(run.log[: run.log.find("# rerun repeat=")], run.message, sep="\n")
    return run, seen


def hostile_entry(config: str, **declared):
    contest = ContestFactory(target_rows=5_000_000, rerun_tolerance=0.25)
    return entry_services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared={**DECLARED, "server_config": config, **declared},
        log_file=upload(python_log(rows=2_000_000, rates=[5_000.0, 5_000.0])),
    )


def test_a_mariadb_entry_declaring_every_hostile_setting_is_verified_unprivileged_and_scaled(
    worker, organizer, watched
):
    target = watched / "target"
    entry = hostile_entry(f"""\
[mysqld]
innodb_buffer_pool_filenam = ../../../target/where.txt
innodb_buffer_pool_dump_at_shutdown = ON
innodb_buffer_pool_load_at_startup = ON
innodb_tmpdi = {target}
innodb_undo_direct = {target}
innodb_data_home_d = {target}
innodb_log_group_home_d = {target}
aria_log_dir_pat = {target}
innodb_data_file_pat = {target}/ibdata1:12M:autoextend
innodb_buffer_pool_size = 1G
key_buffer_size = 20G
innodb_log_buffer_size = 4G
max_connections = 100000
innodb_flush_log_at_trx_commit = 2
""")
    worker("redis", RERUN_RECOVERY_DIR=str(watched / "servers"))
    run, seen = verify(entry, organizer, "mariadb", watched)

    servers = {pid: how for pid, how in seen.items() if how[0].endswith("mariadbd")}
    assert servers, "the private mariadbd was never seen running"
    for _, uid, cgroup in servers.values():
        assert uid != 0 and uid == pwd.getpwnam("mysql").pw_uid
        assert "iibench-recovery-" in cgroup  # its own memory cgroup
    # Read back from the server: oversized memory scaled 1/100, then capped by the budget.
    settings = run.settings
    assert int(settings["key_buffer_size"]) <= 20 * GIB // 100
    assert int(settings["innodb_log_buffer_size"]) <= 4 * GIB // 100
    assert int(settings["max_connections"]) <= 32
    assert settings["innodb_flush_log_at_trx_commit"] == "2"
    for name in ("innodb_buffer_pool_filename", "innodb_tmpdir", "innodb_data_home_dir"):
        assert name not in settings
    log = run.log
    assert "# rerun server user: mysql" in log
    assert "# rerun server memory limit: cgroup v" in log
    assert (
        "innodb_buffer_pool_filenam is refused: not an option of this server; the server would "
        "have taken it as an abbreviation of innodb_buffer_pool_filename" in log
    )
    for prefix, full in [
        ("innodb_tmpdi", "innodb_tmpdir"),
        ("innodb_undo_direct", "innodb_undo_directory"),
        ("innodb_data_home_d", "innodb_data_home_dir"),
        ("innodb_log_group_home_d", "innodb_log_group_home_dir"),
        ("aria_log_dir_pat", "aria_log_dir_path"),
        ("innodb_data_file_pat", "innodb_data_file_path"),
    ]:
        assert f"{prefix} is refused: " in log and f"abbreviation of {full}" in log
    assert "innodb_buffer_pool_load_at_startup = 'ON' is refused" in log
    assert "not known to this server" not in log
    # The verdict names each change with both values.
    message = run.message
    for key, declared in (("key_buffer_size", 20 * GIB), ("innodb_log_buffer_size", 4 * GIB)):
        found = re.search(rf"{key} {declared // GIB}G -> (\d+)([KM]) \(scaled 1/100\)", message)
        assert found, message
        scaled = int(found.group(1)) << (10 if found.group(2) == "K" else 20)
        assert declared // 100 * 0.99 <= scaled <= declared // 100  # 1/100, in whole K
    assert "max_connections 100000 -> 32 (capped)" in message, message
    assert "innodb_buffer_pool_filenam refused" in message
    # The API gives the same changes, one a row.
    from runner.serializers import RerunSerializer

    changes = RerunSerializer(run, context={"request": None}).data["setting_changes"]
    assert "max_connections 100000 -> 32 (capped)" in changes, changes


def test_a_postgresql_entry_declaring_hostile_settings_is_verified_unprivileged_and_scaled(
    worker, organizer, watched
):
    target = watched / "target"
    entry = hostile_entry(
        f"""\
archive_mode = on
archive_command = 'cp %p {target}/%f'
archive_comm = 'cp %p {target}/%f'
shared_preload_libraries = 'pg_stat_statements'
shared_preload_librar = 'pg_stat_statements'
include = '{target}/more.conf'
include_if_exists = '{target}/more.conf'
ssl_passphrase_command = 'touch {target}/ran'
data_directory = '{target}'
hba_file = '{target}/hba'
hba_fil = '{target}/hba'
work_mem = 1TB
max_connections = 100000
synchronous_commit = off
""",
        server_family="postgresql",
        server_version="15.4",
        storage_engine="heap",
    )
    worker("redis", RERUN_RECOVERY_DIR=str(watched / "servers"))
    run, seen = verify(entry, organizer, "postgresql", watched)

    postgres_uid = pwd.getpwnam("postgres").pw_uid
    assert seen and all(uid == postgres_uid for _, uid, _ in seen.values()), seen
    assert all("iibench-recovery-" in cgroup for _, _, cgroup in seen.values()), seen
    settings = run.settings
    assert settings["synchronous_commit"] == "off"
    # 1 TB scaled 1/100 is 10 GB; the budget (two work_mem per connection) cuts it further.
    work_mem = settings["work_mem"]
    assert work_mem.endswith(("MB", "GB", "kB")) and work_mem != "1TB"
    unit = {"kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}[work_mem[-2:]]
    assert int(work_mem[:-2]) * unit <= (1 << 40) // 100
    assert int(settings["max_connections"]) <= 32
    log = run.log
    assert "# rerun server user: postgres" in log
    for refused in (
        "archive_mode = 'on' is refused",
        "archive_command = ",
        "archive_comm is refused",
        "shared_preload_libraries = 'pg_stat_statements' is refused",
        "shared_preload_librar is refused",
        "include is refused",
        "include_if_exists is refused",
        "ssl_passphrase_command = ",
        "data_directory = ",
        "hba_file = ",
        "hba_fil is refused",
    ):
        assert f"# rerun setting refused: {refused}" in log, refused
    assert "work_mem 1TB -> " in run.message and "max_connections 100000 -> 32" in run.message
