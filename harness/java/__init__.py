"""Java: the JVM and javac, workspaces for Defects4J and Maven repositories, the method and class runners.

Public API, by module:

* :mod:`harness.java.toolchain`: the JDK, JUnit, benchsmith's Java runner and class paths (``JavaRuntime``,
  ``tool``, ``junit_classpath``, ``runner_classpath``); :mod:`harness.java.java8` installs Defects4J's Java 8;
* :mod:`harness.java.jvm`: ``Compiler`` (the warm javac) and ``TestJvm``/``TestJvms`` (one fresh JVM per candidate);
* :mod:`harness.java.defects4j_workspace`: ``Workspace``, ``prepare``, ``java_public_view`` (NL2Fix workspaces);
* :mod:`harness.java.maven_workspace`: ``JavaWorkspace``, ``java_workspace`` (Java classbench's Maven modules), with
  :mod:`~harness.java.classpath`, :mod:`~harness.java.reactor`, :mod:`~harness.java.compile`,
  :mod:`~harness.java.lombok` and :mod:`~harness.java.packages`;
* :mod:`harness.java.method_runner`: ``InstanceRunner`` (NL2Fix: one method replaced), with
  :mod:`~harness.java.insertion`, :mod:`~harness.java.sentinels` and :mod:`~harness.java.jvm_modules`;
* :mod:`harness.java.class_runner`: ``ClassTaskRunner`` (Java classbench: one class replaced);
* :mod:`harness.java.mutants`: ``mutants`` (reference candidates of a Java method).

The Java runner's own sources (``BenchsmithRunner.java``, ``PlatformRunner.java``, ``Confinement.java``) sit in this
folder as package data. Submodules are imported by name; importing the package imports none of them.
"""
