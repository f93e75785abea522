from django.urls import path

from submissions.live import api

urlpatterns = [
    path("witness-tokens/", api.WitnessTokenListCreate.as_view(), name="api_witness_tokens"),
    path("witness-tokens/<int:pk>/", api.WitnessTokenDetail.as_view(), name="api_witness_token"),
    path("live/", api.LiveRunOpen.as_view(), name="api_live_runs"),
    path("live/<int:pk>/", api.LiveRunDetail.as_view(), name="api_live_run"),
    path("live/<int:pk>/batches/", api.LiveRunBatches.as_view(), name="api_live_batches"),
    path("live/<int:pk>/seal/", api.LiveRunSeal.as_view(), name="api_live_seal"),
]
