"""One import namespace, the owner's layout kept: the top-level folders builders/, scrapers/ and paraphrase/ install as
benchsmith.builders, benchsmith.scrapers and benchsmith.paraphrase (a package-dir mapping), so a wheel puts nothing but
``benchsmith`` at the top of site-packages. pyproject.toml cannot list packages found under a mapped folder, hence
these lines; everything else about the distribution is in pyproject.toml."""

from setuptools import find_packages, setup

MAPPED = {"benchsmith.builders": "builders", "benchsmith.scrapers": "scrapers", "benchsmith.paraphrase": "paraphrase"}

packages = find_packages(include=["benchsmith", "benchsmith.*"])
for name, folder in MAPPED.items():
    packages += [name, *(f"{name}.{sub}" for sub in find_packages(folder))]

setup(packages=packages, package_dir=MAPPED)
