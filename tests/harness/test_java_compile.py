"""Which declared artifact a javac "package does not exist" is put down to, on the errors commons-io 2.11.0's tests
gave here (its pom declares junit-pioneer and jimfs, which Debian lacks)."""

from benchsmith.runners.java.compile import explain_error

MISSING = [
    "org.junit-pioneer:junit-pioneer:1.4.2",
    "org.mockito:mockito-inline:3.11.2",
    "com.google.jimfs:jimfs:1.2",
    "org.openjdk.jmh:jmh-core:1.32",
]


def _error(package: str) -> str:
    return f"/w/tree/src/test/java/A.java:3: error: package {package} does not exist\nimport {package}.X;\n"


def test_the_artifact_of_a_missing_package_is_named_by_group_or_by_artifact():
    assert explain_error(_error("org.junitpioneer.jupiter"), 0, MISSING).endswith(
        "; missing artifact org.junit-pioneer:junit-pioneer:1.4.2"
    )
    assert explain_error(_error("com.google.common.jimfs"), 0, MISSING).endswith(
        "; missing artifact com.google.jimfs:jimfs:1.2"
    )
    assert explain_error(_error("org.openjdk.jmh.annotations"), 0, MISSING).endswith(
        "; missing artifact org.openjdk.jmh:jmh-core:1.32"
    )
    # a package of the same company but no artifact of that name is nobody's
    assert explain_error(_error("com.google.common.collect"), 0, MISSING).endswith(
        "; no dependency on the class path provides it"
    )
