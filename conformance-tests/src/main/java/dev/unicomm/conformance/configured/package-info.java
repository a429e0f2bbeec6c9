/**
 * Concrete, empty subclasses of every kit suite whose hooks all come from
 * {@link dev.unicomm.conformance.KitSettings} properties: what the {@code unicomm conformance}
 * command runs. Their names do not end in {@code Test}, so build tools do not pick them up by accident.
 */
package dev.unicomm.conformance.configured;
