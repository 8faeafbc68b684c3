from django.conf.urls import include, url
from django.contrib import admin
from django.contrib.auth import views as auth_views

from . import views

urlpatterns = [
    url(r"^admin/", admin.site.urls),
    url(r"^accounts/login/$", auth_views.LoginView.as_view(), name="auth_login"),
    url(r"^accounts/logout/$", auth_views.LogoutView.as_view(), name="auth_logout"),
    url(r"^accounts/register/$", views.RegisterView.as_view(), name="registration_register"),
    url(r"^", include("pybb.urls", namespace="pybb")),
]
