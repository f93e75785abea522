"""The Dockerfile and docker-compose.yml split privilege as the verification worker needs
(they cannot be built here: read as text and YAML). The site runs as an unprivileged user;
only the verification workers run as root, with every capability dropped but those that start
a private server as its own user and stop it; nothing runs privileged."""

from __future__ import annotations

from pathlib import Path

import yaml
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
WORKER_CAPABILITIES = {"SETUID", "SETGID", "CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL"}


def dockerfile_stages() -> dict[str, list[str]]:
    """Stage name -> its instructions (continuation lines joined), base stages inherited."""
    stages: dict[str, list[str]] = {}
    current: list[str] = []
    for line in (ROOT / "Dockerfile").read_text().replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.upper().startswith("FROM "):
            parts = line.split()
            parent = stages.get(parts[1], [])
            current = [*parent, line]
            stages[parts[3] if len(parts) > 3 and parts[2].upper() == "AS" else parts[1]] = current
        else:
            current.append(line)
    return stages


def last_user(instructions: list[str]) -> str:
    users = [line.split()[1] for line in instructions if line.upper().startswith("USER ")]
    return users[-1] if users else "root"


def test_the_web_image_runs_as_an_unprivileged_user_and_the_worker_image_has_the_servers():
    stages = dockerfile_stages()
    web, worker = stages["web"], stages["worker"]
    assert last_user(web) not in ("root", "0")
    assert any("useradd" in line and last_user(web) in line for line in web)
    # The worker starts as root only to start each server as its own user.
    assert last_user(worker) == "root"
    installs = " ".join(line for line in worker if line.startswith("RUN"))
    assert "mariadb-server" in installs and "postgresql" in installs
    assert "mariadb-server" not in " ".join(web)  # the site has no database server to misuse
    environment = " ".join(line for line in worker if line.startswith("ENV"))
    assert "RERUN_RECOVERY_MARIADB_USER=mysql" in environment
    assert "RERUN_RECOVERY_POSTGRESQL_USER=postgres" in environment


def test_compose_runs_only_the_verification_workers_as_root_with_the_capabilities_they_need():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    ours = {name: s for name, s in services.items() if "build" in s}
    assert {"web", "beat", "worker-sqlite", "verify-a", "verify-b"} <= set(ours)
    for name, service in ours.items():
        assert not service.get("privileged"), name
        assert "no-new-privileges:true" in service.get("security_opt", []), name
        verifies = service["build"]["target"] == "worker"
        assert verifies == (name in ("verify-a", "verify-b")), name
        if verifies:
            assert service["cap_drop"] == ["ALL"], name
            assert set(service["cap_add"]) == WORKER_CAPABILITIES, name
            assert service.get("mem_limit"), name  # bounds every private server it starts
        else:
            assert "cap_add" not in service and service.get("user") in (None, "iibench"), name
    for name, service in services.items():
        assert not set(service.get("cap_add", [])) & {"SYS_ADMIN", "ALL", "NET_ADMIN"}, name
