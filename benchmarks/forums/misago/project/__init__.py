# Celery app bound to the Django settings (CELERY_TASK_ALWAYS_EAGER: tasks run in-process)
from celery import Celery

app = Celery("misagosite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
