"""An entry's verification outcome in words (entries/outcome.py, pure): what every page,
export and feed says of each state."""

import ast
from datetime import UTC, datetime, timedelta
from pathlib import Path

from submissions.entries.outcome import VerificationOutcome, outcome_of, setup_changed

JUDGED = datetime(2026, 11, 29, 4, 0, tzinfo=UTC)
HEADLINE = "Not reproduced at 1/10 on mariadb: cliff at 46% vs 80%, 82%, 81%."


def test_a_verdict_reads_as_its_headline_and_only_a_reproduction_verifies():
    refuted = VerificationOutcome("not_reproduced", JUDGED, HEADLINE)
    assert (refuted.state, refuted.verified, refuted.words) == ("not_reproduced", False, HEADLINE)
    assert refuted.label == "Not reproduced"
    reproduced = VerificationOutcome("reproduced", JUDGED, "")
    assert reproduced.verified and reproduced.words == "Reproduced by an organizer's rerun."


def test_an_edit_after_the_verification_is_said_with_its_day_and_undoes_verified():
    edited = JUDGED + timedelta(days=2)
    outcome = VerificationOutcome("reproduced", JUDGED, "Reproduced at 1/10 on mariadb.", edited)
    assert (outcome.state, outcome.verified) == ("before_edit", False)
    assert outcome.label == "Verified before an edit"
    assert outcome.words.startswith("Verified before an edit on 1 Dec 2026: the machine, server,")
    assert "(Reproduced at 1/10 on mariadb.)" in outcome.words
    # An edit before the verification: the verification is of the declaration as it stands.
    again = VerificationOutcome("reproduced", edited + timedelta(hours=1), "", edited)
    assert again.verified and again.state == "reproduced"
    shape = VerificationOutcome("shape_only", JUDGED, "", edited)
    assert shape.label == "Shape only before an edit"


def test_no_verification_and_an_unknown_stored_word_say_nothing():
    assert outcome_of({"verification": ""}).words == ""
    assert outcome_of({"verification": "comparison"}).state == ""


def test_only_the_machine_server_engine_and_settings_leave_a_verification_behind():
    before = {"memory_gb": 23.5, "solution_description": "a", "server_config": "x=1"}
    assert setup_changed(before, {**before, "memory_gb": 4.0})
    assert setup_changed(before, {**before, "server_config": "x=2"})
    assert not setup_changed(before, {**before, "solution_description": "b"})


def test_the_outcome_module_imports_no_django():
    source = Path(__file__).parents[2] / "entries" / "outcome.py"
    names = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert not [name for name in names if name and name.startswith("django")]
