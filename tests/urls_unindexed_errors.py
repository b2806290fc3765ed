from django.urls import path
from rest_framework.generics import ListAPIView

from django_api_conventions.models import IdempotencyRecord, RuntimeSwitch
from testproject.billing.views import NewestFirst


class ByBody(ListAPIView):
    queryset = IdempotencyRecord.objects.all()
    pagination_class = type("ByBody", (NewestFirst,), {"ordering": ("response_body",)})


class ByName(ListAPIView):
    queryset = RuntimeSwitch.objects.all()
    pagination_class = type("ByName", (NewestFirst,), {"ordering": ("name",)})  # unique: its own index


urlpatterns = [path("by-body", ByBody.as_view()), path("by-name", ByName.as_view())]
