/**
 * The Ascend backend's insides: the communicator, heap, RMA and teams over Ascend SHMEM, the ACL device
 * and stream wrappers, the settings and the availability probe; the only package that holds or calls the
 * JavaCPP natives ({@code AscendNatives}). Nothing outside backend-ascend may depend on it; users reach it
 * through {@code dev.unicomm.api.Unicomm}, the provider through {@code dev.unicomm.backend.ascend}.
 */
package dev.unicomm.backend.ascend.internal;
