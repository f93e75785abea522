from django.urls import path

from submissions.web import feeds, open_data, sharing, systems, views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("contests/<slug:slug>/", views.contest_detail, name="contest_detail"),
    path("contests/<slug:slug>/submit/", views.entry_create, name="submission_create"),
    path("contests/<slug:slug>/leaderboard.csv", views.leaderboard_csv, name="leaderboard_csv"),
    path("contests/<slug:slug>/leaderboard.json", views.leaderboard_json, name="leaderboard_json"),
    path("compare/", sharing.compare, name="compare"),
    path("seeds/", views.seeds_reproduced, name="seeds_reproduced"),
    path("search/", systems.search, name="search"),
    path("engines/<path:engine>/", systems.engine_page, name="engine_page"),
    path("cpus/<path:cpu_model>/", systems.cpu_page, name="cpu_page"),
    path("contests/<slug:slug>/badge.svg", sharing.contest_badge, name="contest_badge"),
    path("open-data/", open_data.open_data_page, name="open_data"),
    path("open-data/<str:name>", open_data.open_data_file, name="open_data_file"),
    path("feeds/results.atom", feeds.PublishedResultsFeed(), name="results_feed"),
    path("entries/mine/", views.my_entries, name="my_entries"),
    path("account/", views.account, name="account"),
    path("account/tokens/<slug:kind>/revoke/", views.token_revoke, name="token_revoke"),
    path("entries/<int:pk>/", views.submission_detail, name="submission_detail"),
    path("entries/<int:pk>/edit/", views.entry_edit, name="submission_edit"),
    path("entries/<int:pk>/delete/", views.entry_delete, name="submission_delete"),
    path("entries/<int:pk>/log/", views.submission_log, name="submission_log"),
    path(
        "entries/<int:pk>/server-config.txt",
        views.submission_server_config,
        name="submission_server_config",
    ),
    path("entries/<int:pk>/history/", views.entry_history, name="submission_history"),
    path(
        "changes/<int:pk>/<str:decision>/",
        views.pending_change_decide,
        name="pending_change_decide",
    ),
    path("entries/<int:pk>/badge.svg", sharing.entry_badge, name="entry_badge"),
    path("entries/<int:pk>/rules/v<int:number>/", sharing.entry_checked, name="entry_checked"),
    path("entries/<int:pk>/figures.json", sharing.entry_figures, name="entry_figures"),
]
