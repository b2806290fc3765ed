from django.contrib import admin

from django_api_conventions.soft_delete.admin import SoftDeleteAdmin

from .models import Customer, Invoice, Order, Payment


@admin.register(Invoice)
class InvoiceAdmin(SoftDeleteAdmin):
    list_display = ["id", "user", "status", "amount_due", "currency", "created_at", "deleted_at"]


admin.site.register([Customer, Order, Payment])
