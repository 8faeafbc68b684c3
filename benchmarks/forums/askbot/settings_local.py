
# ---- engine zoo overrides (appended by setup.sh to the settings.py that askbot-setup wrote) ----
BASE_URL = "http://127.0.0.1:8105"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
TIME_ZONE = "UTC"
USE_TZ = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
COMPRESS_ENABLED = False
COMPRESS_OFFLINE = False
SECRET_KEY = "loopback-test-forum-not-secret"  # fixed: the signed ?next= tokens stay the same
