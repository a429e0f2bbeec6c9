package dev.unicomm.backend.rdma.internal;

/** A registered memory region ({@code ibv_mr}). */
public final class MemoryRegion implements AutoCloseable {
    /** LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC. */
    public static final int ACCESS_ALL = 1 | 2 | 4 | 8;

    private final long handle;
    private final long address;
    private final long length;
    private final int lkey;
    private final int rkey;
    private boolean open = true;

    public MemoryRegion(DeviceContext dev, long address, long length, int access) {
        this.handle = Verbs.checkHandle(
                VerbsShim.ucv_mr_reg(dev.handle(), address, length, access),
                "ibv_reg_mr(" + length + " bytes at 0x" + Long.toHexString(address) + ")");
        this.address = address;
        this.length = length;
        this.lkey = VerbsShim.ucv_mr_lkey(handle);
        this.rkey = VerbsShim.ucv_mr_rkey(handle);
    }

    public long address() {
        return address;
    }

    public long length() {
        return length;
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        Verbs.check(VerbsShim.ucv_mr_dereg(handle), "ibv_dereg_mr");
    }
}
