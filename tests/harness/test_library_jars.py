"""One jar per artifact from a Defects4J lib/ folder, the version the revision's pom pins."""

import zipfile

from benchsmith.runners.java.toolchain import library_jars


def test_a_pinned_snapshot_is_found_by_its_maven_folder(tmp_path):
    lib = tmp_path / "lib"
    jars = {
        "com/fasterxml/jackson/core/jackson-core/2.7.0-rc4-SNAPSHOT/jackson-core-2.7.0-rc4-20160106.062135-1.jar",
        "com/fasterxml/jackson/core/jackson-core/3.0.0-SNAPSHOT/jackson-core-3.0.0-20190424.231835-446.jar",
        "com/fasterxml/jackson/core/jackson-core/2.6.3/jackson-core-2.6.3.jar",
        "flat-1.2.jar",
    }
    for jar in jars:
        (lib / jar).parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(lib / jar, "w") as archive:
            archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    names = [jar.name for jar in library_jars(lib, {"jackson-core": "2.7.0-rc4-SNAPSHOT"})]
    assert names == ["flat-1.2.jar", "jackson-core-2.7.0-rc4-20160106.062135-1.jar"]
    assert "jackson-core-3.0.0-20190424.231835-446.jar" in [jar.name for jar in library_jars(lib)]  # unpinned: newest


def test_a_file_that_is_not_a_jar_is_left_out(tmp_path):
    (tmp_path / "iText-2.1.1.jar").write_text("<!DOCTYPE html PUBLIC ...>")  # what JFreeChart's r1085 holds
    with zipfile.ZipFile(tmp_path / "jcommon-1.0.13.jar", "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    assert [jar.name for jar in library_jars(tmp_path)] == ["jcommon-1.0.13.jar"]


def test_the_projects_own_family_goes_with_its_version(tmp_path):
    """JacksonXml-5's pom pins no Jackson module (its parent pom does): they go with its own 2.9.6-SNAPSHOT, the
    nearest version below it, not the newest (3.0, whose packages moved); woodstox, another family, the newest."""
    lib = tmp_path / "lib"
    for jar in [
        "com/fasterxml/jackson/core/jackson-core/2.9.6/jackson-core-2.9.6.jar",
        "com/fasterxml/jackson/core/jackson-core/2.10.0/jackson-core-2.10.0.jar",
        "com/fasterxml/jackson/core/jackson-core/3.0.0-SNAPSHOT/jackson-core-3.0.0-20190424.231835-446.jar",
        "com/fasterxml/jackson/core/jackson-annotations/2.9.0/jackson-annotations-2.9.0.jar",
        "com/fasterxml/woodstox/woodstox-core/5.0.3/woodstox-core-5.0.3.jar",
        "com/fasterxml/woodstox/woodstox-core/5.1.0/woodstox-core-5.1.0.jar",
    ]:
        (lib / jar).parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(lib / jar, "w") as archive:
            archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    own = {
        "groupId": "com.fasterxml.jackson.dataformat",
        "artifactId": "jackson-dataformat-xml",
        "version": "2.9.6-SNAPSHOT",
    }
    names = [jar.name for jar in library_jars(lib, {"jackson-core": "${version.jackson.core}"}, own)]
    assert names == ["jackson-annotations-2.9.0.jar", "jackson-core-2.9.6.jar", "woodstox-core-5.1.0.jar"]


def test_defects4j_s_maven_resolution_pins_the_transitive_jars(tmp_path):
    """cglib 2.2.2 needs asm 3 (ClassWriter.visit is final from asm 4 on: a VerifyError), which JacksonDatabind's pom
    never names; Defects4J's build_files/<rev>/maven-build.xml holds what Maven resolved for the revision."""
    from benchsmith.sources.defects4j import Defects4JRoot

    project = tmp_path / "framework" / "projects" / "Demo"
    lib = project / "lib"
    for jar in ("asm/asm/3.3.1/asm-3.3.1.jar", "org/ow2/asm/asm/4.2/asm-4.2.jar", "cglib/cglib/2.2.2/cglib-2.2.2.jar"):
        (lib / jar).parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(lib / jar, "w") as archive:
            archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    (project / "build_files" / "abc123").mkdir(parents=True)
    (project / "build_files" / "abc123" / "maven-build.xml").write_text(
        '<project><path id="build.test.classpath">\n'
        '<pathelement location="${maven.repo.local}/cglib/cglib/2.2.2/cglib-2.2.2.jar"/>\n'
        '<pathelement location="${maven.repo.local}/asm/asm/3.3.1/asm-3.3.1.jar"/>\n</path></project>\n'
    )
    resolved = Defects4JRoot(tmp_path).resolved_versions("Demo", "abc123")
    assert resolved == {"cglib": "2.2.2", "asm": "3.3.1"}
    assert [j.relative_to(lib).as_posix() for j in library_jars(lib, resolved)] == [
        "asm/asm/3.3.1/asm-3.3.1.jar",
        "cglib/cglib/2.2.2/cglib-2.2.2.jar",
    ]
    assert "org/ow2/asm/asm/4.2/asm-4.2.jar" in [j.relative_to(lib).as_posix() for j in library_jars(lib)]  # unpinned
    assert Defects4JRoot(tmp_path).resolved_versions("Demo", "unknown") == {}


def test_a_gradle_build_pins_jars_and_names_more_source_folders(tmp_path):
    """Mockito 2's betas: Defects4J copies byte-buddy-<the version Gradle names>.jar in, and Gradle compiles the
    default mock maker from a source folder of its own."""
    from benchsmith.runners.java.toolchain import gradle_source_dirs, gradle_versions, pinned_jars

    (tmp_path / "build.gradle").write_text("""
sourceSets {
    main {
        java.srcDirs 'src', 'mockmaker/bytebuddy/main/java'
        compileClasspath = compileClasspath + configurations.provided
    }
    test {
        java.srcDir "test"
    }
}
dependencies {
    compile 'net.bytebuddy:byte-buddy:0.6.8'
    testCompile "junit:junit:4.12"
}
""")
    assert gradle_source_dirs(tmp_path) == {"main": ["src", "mockmaker/bytebuddy/main/java"], "test": ["test"]}
    pinned = gradle_versions(tmp_path)
    assert pinned == {"byte-buddy": "0.6.8", "junit": "4.12"}
    folder = tmp_path / "byte-buddy"
    folder.mkdir()
    for version in ("0.2.1", "0.6.8"):
        with zipfile.ZipFile(folder / f"byte-buddy-{version}.jar", "w") as jar:
            jar.writestr("net/bytebuddy/ByteBuddy.class", b"")
    assert pinned_jars(folder, pinned) == [folder / "byte-buddy-0.6.8.jar"]
    assert pinned_jars(folder, {}) == []  # a revision whose build names none gets none, as under Defects4J


def test_junit_runs_with_the_hamcrest_1_3_of_lib(tmp_path):
    """Defects4J ran JUnit 4.11 on the Hamcrest of lib/; Debian's 2.2 lacks CoreMatchers.is(Class)."""
    from benchsmith.runners.java.toolchain import junit_hamcrest

    def jar(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("org/hamcrest/CoreMatchers.class", b"")
        return path

    assert junit_hamcrest(tmp_path / "none") == []
    core = jar(tmp_path / "maven" / "org" / "hamcrest" / "hamcrest-core" / "1.3" / "hamcrest-core-1.3.jar")
    jar(tmp_path / "maven" / "org" / "hamcrest" / "hamcrest-core" / "1.1" / "hamcrest-core-1.1.jar")
    assert junit_hamcrest(tmp_path / "maven") == [core]
    everything = jar(tmp_path / "flat" / "hamcrest-all-1.3.jar")
    jar(tmp_path / "flat" / "hamcrest-core-1.1.jar")
    assert junit_hamcrest(tmp_path / "flat") == [everything]
