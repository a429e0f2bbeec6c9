/**
 * Adapters for frameworks that hold their memory in JavaCPP {@code Pointer}s (the bytedeco presets:
 * PyTorch, CUDA, ...): {@link dev.unicomm.interop.javacpp.JavaCppMemory} turns a pointer into
 * {@link dev.unicomm.api.Memory} without copying and keeps the pointer reachable while the memory is.
 * This package is the one place outside a backend's {@code internal} package allowed to see JavaCPP
 * (an exemption in the architecture rules): it binds no native code, it only reads a pointer's address.
 */
package dev.unicomm.interop.javacpp;
