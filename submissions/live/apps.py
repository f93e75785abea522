from django.apps import AppConfig


class LiveConfig(AppConfig):
    # Its own app (label "live"), so its tables and migration live beside its code.
    default_auto_field = "django.db.models.BigAutoField"
    name = "submissions.live"
    label = "live"
    verbose_name = "Streamed runs"

    def ready(self) -> None:
        # The registry reads what this wing knows of an entry's stream, shows the runs streaming
        # into a contest, the seal rules' sentences and the witness tokens through its doors
        # (submissions/wings.py); it never imports this wing.
        from django.conf import settings

        from submissions.entries.trust import STREAMED, TRUST_SENTENCES, streamed_sentence
        from submissions.live import selectors
        from submissions.live.seal_rules import SEAL_RULE_SENTENCES
        from submissions.wings import (
            Panel,
            register_contest_panel,
            register_entry_stream,
            register_rule_sentences,
            register_streamed_lookup,
            register_token_lister,
        )

        register_entry_stream(selectors.entry_stream)
        register_contest_panel(
            Panel(
                "live/_contest_live_runs.html",
                selectors.contest_panel,
                reads=selectors.contest_panel_reads,
            )
        )
        register_rule_sentences(SEAL_RULE_SENTENCES)
        # `streamed` says what this wing's clock allows, as configured here.
        TRUST_SENTENCES[STREAMED] = streamed_sentence(
            ahead_fraction=settings.LIVE_CLOCK_TOLERANCE_FRACTION,
            ahead_seconds=settings.LIVE_CLOCK_TOLERANCE_SECONDS,
        )
        register_token_lister(selectors.witness_tokens_of)
        # LiveRun.submission's related name and the field's old name (entries/trust.py).
        register_streamed_lookup("live_run__witnessed")
