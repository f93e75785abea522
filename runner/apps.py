from django.apps import AppConfig


class RunnerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "runner"
    verbose_name = "Verification reruns"

    def ready(self) -> None:
        # The registry's entry page and admin show what the runner adds; the registry never
        # imports the runner (submissions/wings.py).
        from runner.admin import start_reruns
        from runner.judge.server_options import unreadable_size
        from runner.option_tables import setting_decisions
        from runner.views import host_board_panel, rerun_panel
        from submissions.wings import (
            EntryPanel,
            Panel,
            register_contest_panel,
            register_entry_admin_action,
            register_entry_panel,
            register_setting_decider,
            register_size_check,
        )

        register_entry_panel(EntryPanel("runner/_reruns.html", rerun_panel))
        register_contest_panel(Panel("runner/_contest_host_board.html", host_board_panel))
        register_entry_admin_action(start_reruns)
        register_setting_decider(setting_decisions)
        register_size_check(unreadable_size)
