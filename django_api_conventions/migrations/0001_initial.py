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
    ]
