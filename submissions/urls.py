from django.urls import path

from submissions import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("contests/<slug:slug>/", views.contest_detail, name="contest_detail"),
    path("contests/<slug:slug>/submit/", views.submission_create, name="submission_create"),
    path("entries/mine/", views.my_entries, name="my_entries"),
    path("entries/<int:pk>/", views.submission_detail, name="submission_detail"),
    path("entries/<int:pk>/edit/", views.submission_edit, name="submission_edit"),
    path("entries/<int:pk>/delete/", views.submission_delete, name="submission_delete"),
    path("entries/<int:pk>/log/", views.submission_log, name="submission_log"),
]
