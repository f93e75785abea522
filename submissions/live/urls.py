from django.urls import path

from submissions.live import feeds, views

urlpatterns = [
    path("live/<int:pk>/", views.live_run_detail, name="live_run_detail"),
    path("contests/<slug:slug>/stream/", views.contest_stream, name="contest_stream"),
    path("feeds/live.atom", feeds.LiveRunsFeed(), name="live_runs_feed"),
    path("witness/", views.witness_page, name="witness_page"),
    path(f"witness/{views.CLIENT_NAME}", views.witness_client, name="witness_client"),
]
