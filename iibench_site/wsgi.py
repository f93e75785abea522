import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "iibench_site.settings.production")

django_application = get_wsgi_application()

# A witness client's plain batch, the most frequent request, is answered before Django's
# handler and middleware; everything else goes to Django (submissions/live/wsgi_appends.py).
# Imported once Django is set up: it reads the models.
from submissions.live.wsgi_appends import AppendsBeforeDjango  # noqa: E402

application = AppendsBeforeDjango(django_application)
