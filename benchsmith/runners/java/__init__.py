"""Java: the JVM and javac, workspaces for Defects4J and Maven repositories, the method and class runners.

Public API, by module:

* :mod:`benchsmith.runners.java.toolchain`: the JDK, JUnit, benchsmith's Java runner and class paths (``JavaRuntime``,
  ``tool``, ``junit_classpath``, ``runner_classpath``); :mod:`benchsmith.runners.java.java8` installs Defects4J's Java
  8;
* :mod:`benchsmith.runners.java.jvm`: ``Compiler`` (the warm javac) and ``TestJvm``/``TestJvms`` (one fresh JVM per
candidate);
* :mod:`benchsmith.runners.java.defects4j_workspace`: ``Workspace``, ``prepare``, ``java_public_view`` (NL2Fix
workspaces);
* :mod:`benchsmith.runners.java.maven_workspace`: ``JavaWorkspace``, ``java_workspace`` (Java classbench's Maven
modules), with
  :mod:`~benchsmith.runners.java.classpath`, :mod:`~benchsmith.runners.java.reactor`,
  :mod:`~benchsmith.runners.java.compile`,
  :mod:`~benchsmith.runners.java.lombok` and :mod:`~benchsmith.runners.java.packages`;
* :mod:`benchsmith.runners.java.method_runner`: ``InstanceRunner`` (NL2Fix: one method replaced), with
  :mod:`~benchsmith.runners.java.insertion`, :mod:`~benchsmith.runners.java.sentinels` and
  :mod:`~benchsmith.runners.java.jvm_modules`;
* :mod:`benchsmith.runners.java.class_runner`: ``ClassTaskRunner`` (Java classbench: one class replaced);
* :mod:`benchsmith.generation.mutants`: ``mutants`` (reference candidates of a Java method).

The Java runner's own sources (``BenchsmithRunner.java``, ``PlatformRunner.java``, ``Confinement.java``) sit in this
folder as package data. Submodules are imported by name; importing the package imports none of them.
"""
