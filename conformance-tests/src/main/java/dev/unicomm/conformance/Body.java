package dev.unicomm.conformance;

import java.io.Serializable;

/**
 * The SPMD body of a rule: runs on every rank's worker JVM with that rank's {@link Pe}. It is
 * serialized in the parent and deserialized in the workers, so write it as a method reference to
 * a static method (or a lambda that captures only serializable values, never the suite).
 * Throwing a JUnit assertion error (or any exception) fails the rule on this rank; a JUnit
 * assumption failure skips it with its message.
 */
@FunctionalInterface
public interface Body extends Serializable {
    void run(Pe pe) throws Exception;
}
