from django.urls import path
from rest_framework.generics import ListAPIView

from testproject.billing.models import Customer, Invoice
from testproject.billing.views import NewestFirst


class ByDeletion(ListAPIView):
    queryset = Invoice.all_objects.all()
    pagination_class = type("ByDeletion", (NewestFirst,), {"ordering": ("-deleted_at",)})


class ByEmail(ListAPIView):
    queryset = Customer.objects.all()
    pagination_class = type("ByEmail", (NewestFirst,), {"ordering": ("email",)})  # unique: its own index


urlpatterns = [path("by-deletion", ByDeletion.as_view()), path("by-email", ByEmail.as_view())]
