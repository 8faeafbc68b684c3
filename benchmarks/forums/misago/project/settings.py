# Django settings of the Misago loopback test forum (after misago's devproject); setup.sh copies
# this file to $FORUMS_HOME/misago/site/misagosite/settings.py.  PostgreSQL runs on a Unix socket
# of its own beside the site, $FORUMS_HOME/misago/pgsock (start.sh), no TCP port.
import os

from misago.settings import *  # noqa: F401,F403

BASE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET_KEY = "loopback-test-forum-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
BASE_URL = "http://127.0.0.1:8103"

DATABASES = {"default": {
    "ENGINE": "django.db.backends.postgresql", "NAME": "misago", "USER": "postgres",
    "HOST": os.environ.get("MISAGO_PG_SOCKET", os.path.join(os.path.dirname(BASE_DIR), "pgsock")),
    "PORT": int(os.environ.get("PGPORT", "5439")),
}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "/static/"
MEDIA_URL = "/media/"
STATIC_ROOT = os.path.join(BASE_DIR, "static")
MEDIA_ROOT = os.path.join(BASE_DIR, "media")
STATICFILES_DIRS = []
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
DEFAULT_FROM_EMAIL = "Forums <forums@example.org>"

AUTH_USER_MODEL = "misago_users.User"
AUTHENTICATION_BACKENDS = ["misago.users.authbackends.MisagoBackend"]
CSRF_FAILURE_VIEW = "misago.core.errorpages.csrf_failure"
INSTALLED_PLUGINS = []
INSTALLED_APPS = [a for a in INSTALLED_APPS if a != "debug_toolbar"] + ["misagosite"]  # noqa: F405
LOGIN_REDIRECT_URL = "misago:index"
LOGIN_URL = "misago:login"
LOGOUT_URL = "misago:logout"
MIDDLEWARE = [
    "misago.users.middleware.RealIPMiddleware",
    "misago.core.middleware.FrontendContextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "misago.cache.middleware.cache_versions_middleware",
    "misago.conf.middleware.dynamic_settings_middleware",
    "misago.socialauth.middleware.socialauth_providers_middleware",
    "misago.users.middleware.UserMiddleware",
    "misago.acl.middleware.user_acl_middleware",
    "misago.core.middleware.ExceptionHandlerMiddleware",
    "misago.users.middleware.OnlineTrackerMiddleware",
    "misago.admin.middleware.AdminAuthMiddleware",
    "misago.threads.middleware.UnreadThreadsCountMiddleware",
]
ROOT_URLCONF = "misagosite.urls"
WSGI_APPLICATION = "misagosite.wsgi.application"
SOCIAL_AUTH_STRATEGY = "misago.socialauth.strategy.MisagoStrategy"
SOCIAL_AUTH_JSONFIELD_ENABLED = True
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [], "APP_DIRS": True,
    "OPTIONS": {"context_processors": TEMPLATE_CONTEXT_PROCESSORS},  # noqa: F405
}]
REST_FRAMEWORK = {
    "DEFAULT_PERMISSION_CLASSES": ["misago.core.rest_permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "misago.core.exceptionhandler.handle_api_exception",
    "UNAUTHENTICATED_USER": "misago.users.models.AnonymousUser",
    "URL_FORMAT_OVERRIDE": None,
}
# no broker: background tasks (notifications) run in the request
CELERY_BROKER_URL = "memory://"
CELERY_TASK_ALWAYS_EAGER = True
MISAGO_AVATARS_SIZES = [400, 200, 100]
MISAGO_SEARCH_CONFIG = "simple"
MISAGO_USER_DATA_DOWNLOADS_WORKING_DIR = os.path.join(BASE_DIR, "userdata")
MISAGO_AVATAR_GALLERY = os.path.join(BASE_DIR, "avatargallery")
