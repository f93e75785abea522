"""The private database servers reruns own (crash recovery and verification alike): their own
data directory, port and socket under a temporary directory, started as the worker's child (so
they die with the worker, PR_SET_PDEATHSIG) with the settings asked for, read back from the
server itself, killed with SIGKILL for a crash, restarted on the same data, and always stopped
and removed at the end.

One interface: `PrivateServer(config, label, settings=...)` in a `with`; `initialize()`,
`start()`, `wait_until_answering()`, `read_settings()`, `crash()`, `start()` again to restart,
`stop()`, and the `with` removes it. `server_config()` builds the config from Django settings.

Only the worker connects: each server's superuser (MariaDB's root, PostgreSQL's) has a password
made for it (`secrets`), kept in the server's 0700 directory and given to the worker's own
clients only: the benchmark in its environment (`client_environment()`: MYSQL_PWD, PGPASSWORD,
never its command line, which every local user can read in /proc), the probes in the driver's
call. Every other account is removed; another local user reaching the port or the socket is
refused (runner/tests/servers/test_private_server_access.py).

The servers run in the foreground as our children, not through mysqld_safe or pg_ctl: those
daemonize the server (it would outlive a killed worker) and mysqld_safe restarts a crashed
server by itself, which is the one thing a crash test must not have."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess  # servers run with argument lists, never a shell  # nosec B404
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runner import cgroups, process

DIR_PREFIX = "iibench-recovery-"
DATABASE = "iibench"
# The benchmark's table: a cheap query on it says the table answers, a count what survived.
TABLE_ANSWERS = "SELECT 1 FROM mypurchases LIMIT 1"
TABLE_ROWS = "SELECT COUNT(*) FROM mypurchases"
# A probe gives up quickly so the caller can look at the clock and the cancel flag.
PROBE_TIMEOUT_SECONDS = 2
# mariadb-install-db and initdb take about a second; past this something is wrong.
SETUP_TIMEOUT_SECONDS = 300


class ServerError(Exception):
    """The private server could not be set up or did not come back; the message says why,
    with the end of its own log."""


# How often a starting server is asked whether it answers: every 20 ms at first, then every 5%
# of the time waited so far (at most 0.5 s), so a recovery time is measured to about 5% and a
# recovery of minutes does not fill the server's log with refused probes.
POLL_SECONDS = 0.02
POLL_FRACTION = 0.05
POLL_MAX_SECONDS = 0.5
TIMED_OUT = "timed_out"
CANCELLED = "cancelled"


@dataclass(frozen=True)
class ServerConfig:
    """Where a kind of private server's programs are, and where its directories go."""

    kind: str  # "mariadb" | "postgresql"
    base_dir: str  # where the temporary directories go (short: socket paths have a limit)
    mariadbd: str = "/usr/sbin/mariadbd"
    mariadb_install_db: str = "/usr/bin/mariadb-install-db"
    postgresql_bin_dir: str = "/usr/lib/postgresql/15/bin"
    # A root worker runs each server (and its initdb / install-db) as its own unprivileged
    # user, never as root: whatever a setting makes the server do, it does as that user.
    postgresql_os_user: str = "postgres"
    mariadb_os_user: str = "mysql"
    # Where the cgroup hierarchies are mounted (the servers' memory limits); None: /sys/fs/cgroup.
    cgroup_root: str | None = None
    # MariaDB plugins the server loads at start (ha_rocksdb.so for MyRocks): an engine that is
    # not built in. Its options exist only with it loaded, so the option table is per set.
    plugins: tuple[str, ...] = ()


# Storage engines a private MariaDB server has only with a plugin loaded (Aria, MyISAM and
# InnoDB are built in). Lower-case engine name -> the plugin's library.
ENGINE_PLUGINS = {"rocksdb": "ha_rocksdb.so"}


def plugins_for_engine(engine: str | None) -> tuple[str, ...]:
    """The plugins a MariaDB server needs to run `engine` (none for the built-in ones)."""
    plugin = ENGINE_PLUGINS.get((engine or "").strip().lower())
    return (plugin,) if plugin else ()


def plugin_arguments(config: ServerConfig) -> list[str]:
    """mariadbd's arguments loading the config's plugins (after --no-defaults)."""
    return [f"--plugin-load-add={plugin}" for plugin in config.plugins]


def os_user(config: ServerConfig) -> str | None:
    """The user a root worker runs the server as; None when the worker is not root (the
    server then runs as the worker's own user, which is already unprivileged)."""
    if os.geteuid() != 0:
        return None
    return config.mariadb_os_user if config.kind == "mariadb" else config.postgresql_os_user


def server_child_setup(user: str | None, cgroup: cgroups.MemoryCgroup | None = None):
    """What the server's child process does before it runs the server: join its memory cgroup
    while still root, drop to the server's user for good (groups, gid, uid), and die with the
    worker. The parent-death signal is set last: a credentials change clears it."""
    entry = pwd.getpwnam(user) if user else None

    def setup() -> None:
        if cgroup is not None:
            cgroup.join()
        if entry is not None:
            os.setgroups([entry.pw_gid])
            os.setgid(entry.pw_gid)
            os.setuid(entry.pw_uid)
        process.die_with_parent()

    return setup


def run_as_server_user(
    config: ServerConfig, arguments: list[str], *, cwd: str | Path
) -> subprocess.CompletedProcess:
    """A server program run to its end as the server's user (its option list, initdb)."""
    return subprocess.run(  # noqa: S603 - fixed binaries from settings  # nosec B603
        arguments,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=SETUP_TIMEOUT_SECONDS,
        preexec_fn=server_child_setup(os_user(config)),
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
        check=False,
    )


def free_port() -> int:
    """A port nobody listens on now. Another process could take it before the server binds it:
    the server then fails to start and says so."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, from /proc: PostgreSQL's children leave the postmaster's
    process group (they call setsid), so killing the group would not reach them."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may hold spaces: the ppid follows the last ')'.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, pending = [], [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purpose: it holds no files and no memory.
    with contextlib.suppress(OSError):
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    return False


def remove_leftovers(base_dir: str, keep: frozenset[str] = frozenset()) -> list[str]:
    """Directories of private servers whose worker process is gone (a worker killed before it
    could clean up; its servers died with it), except those labelled in `keep` (a rerun that
    will be resumed on its data). Returns what was removed."""
    removed = []
    for folder in Path(base_dir).glob(f"{DIR_PREFIX}*"):
        try:
            owner = json.loads((folder / "owner.json").read_text())
        except (OSError, ValueError):
            continue  # not ours, or being created right now
        if owner.get("label") in keep:
            continue
        if owner.get("host") == socket.gethostname() and not alive(int(owner.get("pid", 0))):
            shutil.rmtree(folder, ignore_errors=True)
            if owner.get("cgroup"):
                cgroups.MemoryCgroup(Path(owner["cgroup"]), 0, 0).remove(timeout=0)
            removed.append(str(folder))
    return removed


class PrivateServer:
    """Use as a context manager: whatever happens inside, the server is stopped and its
    directory removed on the way out."""

    def __init__(
        self,
        config: ServerConfig,
        label: str,
        settings: dict[str, str] | None = None,
        *,
        reuse: bool = False,
        memory_limit: int = 0,
    ):
        self.config = config
        self.label = label
        # Take over the data directory a killed worker left under this label (a resumed
        # rerun) instead of a new one; `reused` says whether one was found.
        self.reuse = reuse
        self.reused = False
        # Given to the server at every start (a restart runs with the same settings).
        self.settings = dict(settings or {})
        # Settings this server's version does not know: not given, and said so in the log.
        # The operating system's limit on the server's memory (bytes, 0 for none), its
        # cgroup once made, and why there is none (for the log).
        self.memory_limit = memory_limit
        self.cgroup: cgroups.MemoryCgroup | None = None
        self.cgroup_note = ""
        self.root: Path | None = None
        self.port = 0
        self.server: subprocess.Popen | None = None
        self.log_path: Path | None = None
        # The superuser's password, made for this server (kept with a data directory a
        # resumed rerun takes over).
        self.password = ""  # nosec B105: none yet; initialize() makes one

    # -- life cycle -------------------------------------------------------------------------

    def __enter__(self) -> PrivateServer:
        Path(self.config.base_dir).mkdir(parents=True, exist_ok=True)
        left = self._left_by_a_killed_worker() if self.reuse else None
        self.reused = left is not None
        self.root = left or Path(
            tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{self.label}-", dir=self.config.base_dir)
        )
        self.cgroup, self.cgroup_note = cgroups.memory_cgroup(
            self.root.name,
            self.memory_limit,
            None if self.config.cgroup_root is None else Path(self.config.cgroup_root),
        )
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "label": self.label}
        if self.cgroup is not None:
            owner["cgroup"] = str(self.cgroup.path)
        (self.root / "owner.json").write_text(json.dumps(owner))
        # Only the server's user writes its directory (mkdtemp made it 0700).
        if self._os_user():
            entry = pwd.getpwnam(self._os_user())
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        os.chmod(self.root, 0o700)
        self.password = self._password()
        self.port = free_port()
        self.log_path = self.root / "server.log"
        return self

    def _password(self) -> str:
        """The superuser's password: a data directory taken over keeps its own, a new one
        gets a new one. In a file of the server's directory only the server's user and the
        worker can read: initdb reads it (--pwfile) as the server's user."""
        kept = self.root / "password"
        if self.reused and kept.exists():
            return kept.read_text().strip()
        password = secrets.token_hex(24)  # hex: nothing to quote in SQL, a URL or a file
        self._private_file(kept, password + "\n")
        return password

    def _private_file(self, path: Path, text: str) -> None:
        """A file only the server's user (and root) can read."""
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
            out.write(text)
        if self._os_user():
            entry = pwd.getpwnam(self._os_user())
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def _left_by_a_killed_worker(self) -> Path | None:
        for folder in Path(self.config.base_dir).glob(f"{DIR_PREFIX}{self.label}-*"):
            try:
                owner = json.loads((folder / "owner.json").read_text())
            except (OSError, ValueError):
                continue
            if (
                owner.get("label") == self.label
                and not alive(int(owner.get("pid", 0)))
                and (folder / "data").is_dir()
            ):
                return folder
        return None

    def __exit__(self, *exc_info) -> None:
        self.remove()

    def remove(self) -> None:
        self.stop()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    def privilege_lines(self) -> str:
        """The log's account of who the server runs as and what limits its memory."""
        user = self._os_user() or pwd.getpwuid(os.geteuid()).pw_name
        limit = (
            f"# rerun server memory limit: {self.cgroup.describe()}\n"
            if self.cgroup is not None
            else f"# rerun server memory limit: none from the operating system ({self.cgroup_note})\n"
        )
        return f"# rerun server user: {user}, in {self.root} (mode 0700)\n{limit}"

    def _os_user(self) -> str | None:
        return os_user(self.config)

    @property
    def data_dir(self) -> Path:
        if self.root is None:
            raise ServerError("The private server's directory is used outside its `with`.")
        return self.root / "data"

    @property
    def url(self) -> str:
        """The benchmark's --db URL: no password, as it is seen on the command line (the
        password goes in `client_environment()`)."""
        if self.config.kind == "mariadb":
            return f"mysql://root@127.0.0.1:{self.port}/{DATABASE}"
        return f"postgresql://{self._superuser()}@127.0.0.1:{self.port}/{DATABASE}"

    @property
    def client_url(self) -> str:
        """The URL with the password, for a driver in this process (a test's site); never
        for a command line."""
        scheme, rest = self.url.split("://", 1)
        user, at = rest.split("@", 1)
        return f"{scheme}://{user}:{self.password}@{at}"

    def client_environment(self) -> dict[str, str]:
        """What the benchmark's process needs in its environment to connect: the password,
        read by libmariadb (MYSQL_PWD) and libpq (PGPASSWORD) when the URL has none."""
        name = "MYSQL_PWD" if self.config.kind == "mariadb" else "PGPASSWORD"
        return {name: self.password}

    def _superuser(self) -> str:
        return self._os_user() or pwd.getpwuid(os.geteuid()).pw_name

    # -- commands -----------------------------------------------------------------------------

    def initialize(self) -> None:
        """A fresh data directory (mariadb-install-db or initdb)."""
        if self.config.kind == "mariadb":
            access = self.root / "access.sql"
            self._private_file(access, _mariadb_access_sql(self.password))
            arguments = [
                self.config.mariadb_install_db,
                "--no-defaults",
                f"--datadir={self.data_dir}",
                # Passwords, not the OS user (unix_socket): the benchmark connects over TCP.
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                f"--extra-file={access}",  # run in the bootstrap, before any connection
            ]
        else:
            arguments = [
                str(Path(self.config.postgresql_bin_dir) / "initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                self._superuser(),
                # Every connection, local socket or TCP, shows the superuser's password.
                "--auth=scram-sha-256",
                f"--pwfile={self.root / 'password'}",
                "-E",
                "UTF8",
                "--no-sync",  # initdb's files only; the server itself keeps fsync on
            ]
        # mariadb-install-db's bootstrap server runs with its own default buffers, not the
        # entry's (it peaked at 106 MB, and was killed in a 96 MB cgroup): it makes the system
        # tables outside the server's cgroup, which bounds the server that runs the benchmark.
        # initdb runs within PostgreSQL's (it needs 36-40 MB: page_cache.py's floor).
        try:
            self._run_to_end(arguments, "initialize", in_cgroup=self.config.kind != "mariadb")
        finally:
            (self.root / "access.sql").unlink(missing_ok=True)

    def _run_to_end(self, arguments: list[str], what: str, in_cgroup: bool = True) -> None:
        try:
            done = subprocess.run(  # noqa: S603 - fixed binaries from settings  # nosec B603
                arguments,
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=SETUP_TIMEOUT_SECONDS,
                preexec_fn=server_child_setup(self._os_user(), self.cgroup if in_cgroup else None),
                env=self._environment(),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ServerError(
                f"Could not {what} the private {self.config.kind} server: {error}"
            ) from None
        if done.returncode != 0:
            tail = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
            hint = (
                f" (the {self._os_user()} user must be able to reach {self.config.base_dir})"
                if self._os_user() and "Permission denied" in done.stderr
                else ""
            )
            raise ServerError(
                f"Could not {what} the private {self.config.kind} server (exit "
                f"{done.returncode}): {' | '.join(tail[-3:]) or 'no message'}{hint}"
            )

    def _environment(self) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}

    def start(self) -> None:
        """Start the server process (the caller waits until it answers)."""
        if self.config.kind == "mariadb":
            arguments = [
                self.config.mariadbd,
                # --no-defaults must come first; then no option is taken by a unique prefix
                # of its name (innodb_buffer_pool_filenam would be innodb_buffer_pool_filename).
                "--no-defaults",
                "--skip-getopt-prefix-matching",
                f"--datadir={self.data_dir}",
                f"--socket={self.root}/mysqld.sock",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                f"--pid-file={self.root}/mysqld.pid",
                f"--log-error={self.log_path}",
                *plugin_arguments(self.config),
                # Exact names the server lists, typed (runner/judge/server_options.py decided):
                # no `loose-`, an option it does not know stops it rather than pass unseen.
                *(
                    f"--{key.replace('_', '-')}" + (f"={value}" if value != "" else "")
                    for key, value in self.settings.items()
                ),
            ]
        else:
            arguments = [
                str(Path(self.config.postgresql_bin_dir) / "postgres"),
                "-D",
                str(self.data_dir),
                "-p",
                str(self.port),
                "-k",
                str(self.root),
                "-c",
                "listen_addresses=127.0.0.1",
                *(
                    argument
                    for key, value in self.settings.items()
                    for argument in ("-c", f"{key}={value or 'on'}")
                ),
            ]
        # Appended to: the restart's log follows the first start's, as the server would write it.
        with open(self.log_path, "a") as log:
            if self._os_user():  # the server writes its own log too (MariaDB's --log-error)
                entry = pwd.getpwnam(self._os_user())
                os.chown(self.log_path, entry.pw_uid, entry.pw_gid)
            self.server = subprocess.Popen(  # noqa: S603 - fixed binaries from settings  # nosec B603
                arguments,
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=server_child_setup(self._os_user(), self.cgroup),
                env=self._environment(),
            )

    def wait_until_answering(
        self,
        *,
        deadline: float,
        table: bool = False,
        beat: Callable[[], bool] | None = None,
        beat_seconds: float = 5,
    ) -> str | None:
        """Poll until the server answers (and the benchmark's table, if `table`). Returns None,
        or TIMED_OUT past `deadline`, or CANCELLED when `beat` (called every `beat_seconds`)
        says so. A server that exits meanwhile raises ServerError with its log's last lines."""
        started = last_beat = time.monotonic()
        while not self.answers(table):
            code = self.exit_code()
            if code is not None:
                tail = " | ".join(self.log_text().strip().splitlines()[-3:])
                raise ServerError(
                    f"The private {self.config.kind} server exited (code {code}) before it "
                    f"answered: {tail or 'no message'}"
                )
            now = time.monotonic()
            if now > deadline:
                return TIMED_OUT
            if beat is not None and now - last_beat >= beat_seconds:
                last_beat = now
                if beat():
                    return CANCELLED
            waited = now - started
            time.sleep(min(max(POLL_SECONDS, waited * POLL_FRACTION), POLL_MAX_SECONDS))
        return None

    @property
    def pid(self) -> int | None:
        return self.server.pid if self.server else None

    def exit_code(self) -> int | None:
        return self.server.poll() if self.server else None

    def all_pids(self) -> list[int]:
        if self.server is None or self.server.poll() is not None:
            return []
        return [self.server.pid, *descendants(self.server.pid)]

    def crash(self) -> list[int]:
        """SIGKILL the server and every process it started, at once, as a power cut would;
        returns once they are all gone. Returns the pids killed."""
        victims = self.all_pids()
        for pid in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.server is not None:
            self.server.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in victims) and time.monotonic() < deadline:
            time.sleep(0.02)
        return victims

    def stop(self, grace_seconds: float = 10) -> None:
        """A clean shutdown (SIGTERM), then SIGKILL for whatever is left after the grace."""
        if self.server is None:
            return
        victims = self.all_pids()
        if self.server.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.server.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.server.wait(timeout=grace_seconds)
        for pid in victims:
            if alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self.server.poll() is None:
            self.server.wait()
        self.server = None

    # -- probes -------------------------------------------------------------------------------

    def answers(self, table: bool = False) -> bool:
        """One try: the server accepts a connection (and the benchmark's table answers)."""
        try:
            with contextlib.closing(self._connect(DATABASE if table else None)) as connection:
                if table:
                    self._fetch(connection, TABLE_ANSWERS)
        except Exception:  # any driver error (refused, starting up, no table yet) means "not yet"
            return False
        return True

    def count_rows(self) -> int:
        try:
            with contextlib.closing(self._connect(DATABASE)) as connection:
                return int(self._fetch(connection, TABLE_ROWS)[0])
        except Exception as error:  # the driver's own errors; the message says what failed
            raise ServerError(f"The recovered table could not be counted: {error}") from None

    def create_database(self, *, fresh: bool = False) -> None:
        """The benchmark's database; `fresh` drops it first (a verification's next repeat)."""
        try:
            with contextlib.closing(self._connect(None)) as connection:
                if fresh:
                    self._fetch(connection, f"DROP DATABASE IF EXISTS {DATABASE}", rows=False)
                self._fetch(connection, f"CREATE DATABASE {DATABASE}", rows=False)
        except Exception as error:  # the driver's own errors; the message says what failed
            raise ServerError(f"Could not create the database {DATABASE}: {error}") from None

    def read_settings(self, keys: list[str]) -> dict[str, str]:
        """The values in effect, as the server reports them (SHOW GLOBAL VARIABLES,
        pg_settings), for the keys asked; a key the server does not have is left out."""
        try:
            with (
                contextlib.closing(self._connect(None)) as connection,
                connection.cursor() as cursor,
            ):
                if self.config.kind == "mariadb":
                    # Only the keys asked: the whole list grew the server's memory by 8 MB for
                    # good (malloc keeps it), which a MyISAM rerun's cgroup would take from its
                    # page cache (docs/scaling.md "MyISAM and Aria").
                    marks = ", ".join(["%s"] * len(keys)) or "''"
                    cursor.execute(
                        f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({marks})", list(keys)
                    )
                else:
                    cursor.execute(
                        "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)",
                        [list(keys)],
                    )
                found = {str(name).lower(): str(value) for name, value in cursor.fetchall()}
        except Exception as error:  # the driver's own errors; the message says what failed
            raise ServerError(f"Could not read the server's settings back: {error}") from None
        return {key: found[key] for key in keys if key in found}

    def _connect(self, database: str | None):
        if self.config.kind == "mariadb":
            import pymysql

            return pymysql.connect(
                host="127.0.0.1",
                port=self.port,
                user="root",
                password=self.password,
                database=database,
                connect_timeout=PROBE_TIMEOUT_SECONDS,
                read_timeout=PROBE_TIMEOUT_SECONDS * 5,
                autocommit=True,
            )
        import psycopg

        return psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user=self._superuser(),
            password=self.password,
            dbname=database or "postgres",
            connect_timeout=PROBE_TIMEOUT_SECONDS,
            autocommit=True,
        )

    @staticmethod
    def _fetch(connection, sql: str, rows: bool = True):
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchone() if rows else None

    def log_text(self, limit: int = 20_000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace")
        return text[-limit:]


def _mariadb_access_sql(password: str) -> str:
    """The bootstrap's last statements: root only at localhost and 127.0.0.1, with the
    password, and no other account that logs in (mariadb.sys cannot). Written to the tables
    themselves: the bootstrap runs without the grant tables loaded, where ALTER USER fails."""
    if not password.isalnum():
        raise ServerError("The private server's password is not the hex one made for it.")
    # The password is hex (checked above): nothing of a user's or a table's in the text.
    return (
        "DELETE FROM mysql.global_priv WHERE User = '';\n"  # noqa: S608  # nosec B608: the password is made here (hex), never input
        "DELETE FROM mysql.global_priv WHERE User = 'root' "
        "AND Host NOT IN ('localhost', '127.0.0.1');\n"
        "UPDATE mysql.global_priv SET Priv = JSON_SET(Priv, '$.plugin', "
        f"'mysql_native_password', '$.authentication_string', PASSWORD('{password}')) "
        "WHERE User = 'root';\n"
    )


def server_config(kind: str, engine: str | None = None) -> ServerConfig:
    """The private server of `kind` as this worker's settings describe it, loading the plugin
    `engine` needs (MyRocks) when it is not built in."""
    from django.conf import settings

    return ServerConfig(
        kind=kind,
        base_dir=str(settings.RERUN_RECOVERY_DIR),
        mariadbd=settings.RERUN_RECOVERY_MARIADBD,
        mariadb_install_db=settings.RERUN_RECOVERY_MARIADB_INSTALL_DB,
        postgresql_bin_dir=settings.RERUN_RECOVERY_POSTGRESQL_BIN_DIR,
        postgresql_os_user=settings.RERUN_RECOVERY_POSTGRESQL_USER,
        mariadb_os_user=settings.RERUN_RECOVERY_MARIADB_USER,
        cgroup_root=settings.RERUN_CGROUP_ROOT,
        plugins=plugins_for_engine(engine) if kind == "mariadb" else (),
    )
