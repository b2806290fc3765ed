"""The example service's settings plus the throwaway pagination views of the benchmarks."""

from testproject.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.urls"
