"""docker-compose.yml runs two verification hosts beside the site, kept right on paper: each
registers under its own host name, serves queues the settings have targets for, and states in
RERUN_HOST_FACTS what a container's /proc misreads (its memory and cores are its limits)."""

import re
import shlex
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from runner.fleet import fact_overrides, host_name
from runner.targets import rerun_targets

COMPOSE = Path(settings.BASE_DIR) / "docker-compose.yml"
UNITS = {"k": 1 / (1 << 20), "m": 1 / (1 << 10), "g": 1}


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def worker_options(service: dict) -> dict:
    """The celery worker's --name=value options, from its command line."""
    words = shlex.split(service["command"])
    assert words[:4] == ["celery", "-A", "iibench_site", "worker"], words
    return dict(word.removeprefix("--").split("=", 1) for word in words[4:] if "=" in word)


def hosts() -> dict:
    return {
        name: s for name, s in services().items() if s.get("build", {}).get("target") == "worker"
    }


def test_compose_runs_two_worker_hosts_under_different_host_names():
    found = hosts()
    assert len(found) == 2, sorted(found)
    names = {host_name(worker_options(s)["hostname"]) for s in found.values()}
    assert len(names) == 2
    for name, service in found.items():
        # The container's host name is the one it registers: the page and its logs agree.
        assert host_name(worker_options(service)["hostname"]) == service["hostname"], name
    # Every celery worker of the stack names its host, none left to a container id.
    for name, service in services().items():
        if "celery" in str(service.get("command", "")) and "worker" in service["command"]:
            assert "hostname" in worker_options(service), name


def test_each_host_serves_queues_the_settings_have_targets_for():
    queues = {target.queue for target in rerun_targets().values()}
    for name, service in hosts().items():
        served = worker_options(service)["queues"].split(",")
        assert served and set(served) <= queues, (name, set(served) - queues)
        # Its targets start private servers: what a verification host is for.
        assert all(rerun_targets()[queue.removeprefix("rerun.")].server for queue in served)
    site = worker_options(services()["worker-sqlite"])["queues"].split(",")
    assert set(site) - {"celery"} <= queues


def test_each_hosts_facts_are_known_facts_and_match_its_limits():
    for name, service in hosts().items():
        environment = service["environment"]
        assert environment["DJANGO_SETTINGS_MODULE"] == "iibench_site.settings.production"
        assert environment["REDIS_URL"] and environment["DATABASE_URL"], name
        facts = fact_overrides(yaml.safe_load(environment["RERUN_HOST_FACTS"]))
        limit = re.fullmatch(r"(\d+)([kmg])", str(service["mem_limit"]).lower())
        assert limit, service["mem_limit"]
        assert facts["memory_gb"] == int(limit.group(1)) * UNITS[limit.group(2)], name
        assert facts["cores"] == service["cpus"], name


def test_facts_compose_would_misname_are_refused():
    with pytest.raises(ImproperlyConfigured, match="unknown facts memory"):
        fact_overrides({"memory": 8})
