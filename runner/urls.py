from django.urls import path

from runner import views

urlpatterns = [
    path("entries/<int:pk>/reruns/", views.rerun_start, name="rerun_start"),
    path("reruns/<int:pk>/", views.rerun_detail, name="rerun_detail"),
    path("reruns/<int:pk>/cancel/", views.rerun_cancel, name="rerun_cancel"),
    path("reruns/<int:pk>/judge-again/", views.rerun_judge_again, name="rerun_judge_again"),
    path(
        "reruns/<int:pk>/calibrate-host/", views.rerun_host_calibrate, name="rerun_host_calibrate"
    ),
    path("reruns/<int:pk>/log/", views.rerun_log, name="rerun_log"),
    path("contests/<slug:slug>/host-board/", views.host_board_page, name="host_board"),
    path("contests/<slug:slug>/host-board.csv", views.host_board_csv, name="host_board_csv"),
    path("verification-hosts/", views.verification_hosts, name="verification_hosts"),
]
