from django.conf import settings


class ContentSecurityPolicyMiddleware:
    """Django 5.2 has no CSP of its own: set the header on every response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        return response
