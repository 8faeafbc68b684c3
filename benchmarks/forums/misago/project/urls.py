from django.conf import settings
from django.conf.urls.static import static
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

urlpatterns = [
    path("", include("misago.urls", namespace="misago")),
    path("django-i18n.js", JavaScriptCatalog.as_view(packages=["misago"]), name="django-i18n"),
]
urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
handler403 = "misago.core.errorpages.permission_denied"
handler404 = "misago.core.errorpages.page_not_found"
