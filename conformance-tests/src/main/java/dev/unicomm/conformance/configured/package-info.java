/**
 * Concrete, empty subclasses of every kit suite whose hooks all come from
 * {@link dev.unicomm.conformance.KitSettings} properties: what the {@code unicomm conformance}
 * command runs. {@link dev.unicomm.conformance.KitSuites} finds them by scanning this package, so a
 * new suite needs only its class here. Their names do not end in {@code Test}, so build tools do
 * not pick them up by accident.
 */
package dev.unicomm.conformance.configured;
