from django.urls import path
from rest_framework.generics import ListAPIView

from django_api_conventions.models import IdempotencyRecord
from testproject.billing.models import Customer
from testproject.billing.views import NewestFirst


class ByBody(ListAPIView):
    queryset = IdempotencyRecord.objects.all()
    pagination_class = type("ByBody", (NewestFirst,), {"ordering": ("response_body",)})


class ByEmail(ListAPIView):
    queryset = Customer.objects.all()
    pagination_class = type("ByEmail", (NewestFirst,), {"ordering": ("email",)})  # unique: its own index


urlpatterns = [path("by-body", ByBody.as_view()), path("by-email", ByEmail.as_view())]
