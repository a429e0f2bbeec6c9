/**
 * The {@code unicomm} command line: {@code info}, {@code run}, {@code conformance} and (from the benchmarks)
 * {@code bench}. The top of the house: it may depend on every published module; nothing may depend on it.
 */
package dev.unicomm.cli;
