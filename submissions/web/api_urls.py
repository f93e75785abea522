from django.urls import path

from submissions.web import api, open_data

urlpatterns = [
    path("auth/token/", api.TokenObtain.as_view(), name="api_token"),
    path("auth/tokens/", api.TokenList.as_view(), name="api_tokens"),
    path("", open_data.ApiRoot.as_view(), name="api_root"),
    path("dataset/", open_data.DatasetManifest.as_view(), name="api_dataset"),
    path("contests/", api.ContestList.as_view(), name="api_contests"),
    path(
        "contests/<slug:slug>/leaderboard/",
        api.ContestLeaderboard.as_view(),
        name="api_leaderboard",
    ),
    path("submissions/", api.SubmissionListCreate.as_view(), name="api_submissions"),
    path("submissions/preview/", api.SubmissionPreview.as_view(), name="api_submission_preview"),
    path("submissions/<int:pk>/", api.SubmissionDetail.as_view(), name="api_submission"),
    path("submissions/<int:pk>/samples/", api.SubmissionSamples.as_view(), name="api_samples"),
]
