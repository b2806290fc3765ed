from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="RuntimeSwitch",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=64, unique=True)),
                ("enabled", models.BooleanField(default=False)),
                ("retry_after", models.PositiveIntegerField(default=300)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={"verbose_name": "runtime switch", "verbose_name_plural": "runtime switches"},
        ),
        migrations.CreateModel(
            name="IdempotencyRecord",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("scope", models.CharField(max_length=255)),
                ("key", models.CharField(max_length=255)),
                (
                    "state",
                    models.CharField(
                        choices=[("started", "Started"), ("resolved", "Resolved"), ("failed", "Failed")], max_length=8
                    ),
                ),
                (
                    "fingerprint",
                    models.CharField(help_text="SHA-256 of the request; never the request itself.", max_length=64),
                ),
                ("response_status", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("response_headers", models.JSONField(blank=True, default=dict)),
                ("response_body", models.BinaryField(blank=True, null=True)),
                ("lease_owner", models.CharField(blank=True, max_length=32)),
                ("lease_expires_at", models.DateTimeField()),
                ("expires_at", models.DateTimeField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "verbose_name": "idempotency record",
                "indexes": [models.Index(fields=["expires_at"], name="idempotency_expires_at")],
                "constraints": [models.UniqueConstraint(fields=("scope", "key"), name="idempotency_scope_key_unique")],
            },
        ),
    ]
