from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include("submissions.web.api_urls")),
    path("api/", include("submissions.live.api_urls")),
    path("api/", include("runner.api_urls")),
    path("", include("runner.urls")),
    path("", include("submissions.live.urls")),
    path("", include("submissions.web.urls")),
]

handler400 = "iibench_site.views.bad_request"
handler500 = "iibench_site.views.server_error"
