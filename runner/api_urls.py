from django.urls import path

from runner import api

urlpatterns = [
    path("submissions/<int:pk>/reruns/", api.RerunStart.as_view(), name="api_rerun_start"),
    path("reruns/<int:pk>/", api.RerunDetail.as_view(), name="api_rerun"),
    path("reruns/<int:pk>/cancel/", api.RerunCancel.as_view(), name="api_rerun_cancel"),
    path("reruns/<int:pk>/samples/", api.RerunSamples.as_view(), name="api_rerun_samples"),
    path("contests/<slug:slug>/host-board/", api.HostBoard.as_view(), name="api_host_board"),
    path("verification-hosts/", api.VerificationHosts.as_view(), name="api_verification_hosts"),
]
