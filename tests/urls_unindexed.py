from django.urls import include, path
from rest_framework.generics import ListAPIView

from testproject.billing.models import Order, Payment
from testproject.billing.views import NewestFirst


class PaymentsEverywhere(ListAPIView):
    queryset = Payment.objects.all()
    pagination_class = NewestFirst


class OldestOrdersFirst(NewestFirst):
    ordering = ("created_at", "pk")  # the reverse of an index: served by it


class OrdersOldestFirst(ListAPIView):
    queryset = Order.objects.all()
    pagination_class = OldestOrdersFirst


class OrdersByStatus(ListAPIView):
    queryset = Order.objects.all()
    pagination_class = type("ByStatus", (NewestFirst,), {"ordering": ("status",)})


urlpatterns = [
    path("nested/", include([path("payments", PaymentsEverywhere.as_view())])),
    path("orders-oldest", OrdersOldestFirst.as_view()),
    path("orders-by-status", OrdersByStatus.as_view()),
    path("orders-by-status-again", OrdersByStatus.as_view()),
]
