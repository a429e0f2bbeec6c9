package dev.unicomm.backend.shm;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.api.Team;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.CallAgreement;
import dev.unicomm.spi.PayloadAgreement;
import dev.unicomm.spi.Store;
import dev.unicomm.spi.support.BackendCommunicatorBase;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One PE of a shared-memory job. Opening (collective):
 * <ol>
 *   <li>files of dead processes left in the directory are removed (nobody holds their lock);</li>
 *   <li>rank 0 checks that the whole job's files fit in the directory, creates the job's private
 *       folder (0700, a random name: {@link JobDirectory}) and publishes its path in the store;</li>
 *   <li>each PE checks the folder is private to its user, creates its owner-only file (control area + heap), locks it (its liveness, for the
 *       whole run), backs its pages, maps it and publishes its path;</li>
 *   <li>after a store barrier each PE maps every peer's file and checks its header (heap sizes must match);</li>
 *   <li>after a second store barrier each PE deletes its file name (the last one the folder): the
 *       mappings stay valid and nothing is left in the directory, even if the job is killed later.
 *       A PE whose start fails removes its file and those of dead PEs; an exit (shutdown hook) too.</li>
 * </ol>
 */
final class ShmCommunicator extends BackendCommunicatorBase<ShmHeap, ShmRma, ShmTeam> {
    private final Arena arena;
    private final MemorySegment[] controls;
    private final MemorySegment[] heaps;
    private final Path ownFile;
    /** Every PE's file channel: ours holds our lock, the peers' probe theirs. */
    private final SegmentFiles.Handle[] handles;

    private final Waiter waiter;
    /** Bit i set: team slot i is in use on this PE (slot 0: the world). */
    private long usedSlots = 1;

    private boolean closed;

    private ShmCommunicator(
            int rank,
            int size,
            Arena arena,
            SegmentFiles.Handle[] handles,
            Path ownFile,
            long heapSize,
            CommConfig config,
            Store store) {
        super(rank, size);
        this.arena = arena;
        this.ownFile = ownFile;
        this.handles = handles;
        MemorySegment[] files = new MemorySegment[size];
        for (int pe = 0; pe < size; pe++) files[pe] = handles[pe].segment();
        this.controls = new MemorySegment[size];
        this.heaps = new MemorySegment[size];
        long[] pids = new long[size];
        for (int pe = 0; pe < size; pe++) {
            controls[pe] = files[pe].asSlice(0, Control.BYTES);
            heaps[pe] = files[pe].asSlice(Control.BYTES, heapSize);
            pids[pe] = Words.getPlain(controls[pe], Control.HDR_PID);
        }
        // All PEs of a shm job share this host: more of them than processors means spinning steals the peers' cores.
        this.waiter = new Waiter(
                config.timeout(),
                new Watchdog(rank, pids, handles, store, controls, config.elastic()),
                size > Runtime.getRuntime().availableProcessors());
        ShmHeap heap = new ShmHeap(this, heapSize);
        ShmRma rma = new ShmRma(this);
        int[] all = new int[size];
        for (int i = 0; i < size; i++) all[i] = i;
        parts(heap, rma, new ShmTeam(this, all, rank, 0));
    }

    /** Opens this PE's side (collective over the job). */
    static ShmCommunicator open(BackendContext ctx, Path dir) {
        CommConfig config = ctx.config();
        Store store = ctx.store();
        int rank = ctx.rank(), size = ctx.size();
        long heapSize = config.heapSize();
        long fileSize = Math.addExact(Control.BYTES, heapSize);
        // Every rank adds once per open and the barrier below keeps opens apart, so all get the same number.
        long generation = (store.add("unicomm.shm/opens", 1) - 1) / size;
        String key = "unicomm.shm/" + generation + "/";
        SegmentFiles.reclaimStale(dir); // files of versions before job folders
        JobDirectory.reclaimStale(dir);
        String here = HostIdentity.current(dir);
        if (rank == 0) {
            SegmentFiles.requireJobFits(
                    dir, size,
                    fileSize); // before anyone's file exists; others learn of a failure through the store's abort
            store.set(key + "dir", (JobDirectory.create(dir) + "\n" + here).getBytes(StandardCharsets.UTF_8));
        }
        String[] published;
        try {
            published = new String(store.get(key + "dir"), StandardCharsets.UTF_8).split("\n", 2);
        } catch (RuntimeException e) {
            // Rank 0 may have died after making the job's folder, whose name only it and the store knew.
            JobDirectory.reclaimAfterFailedStart(dir);
            throw e;
        }
        HostIdentity.requireSameShm(published[1], here, rank);
        Path jobDir = JobDirectory.join(published[0]);
        long pid = ProcessHandle.current().pid();
        String job = jobDir.getFileName().toString().substring(JobDirectory.PREFIX.length());
        Path own = jobDir.resolve(SegmentFiles.name(job, rank, pid));
        Arena arena = Arena.ofShared();
        SegmentFiles.Handle[] handles = new SegmentFiles.Handle[size];
        boolean ok = false;
        try {
            handles[rank] = SegmentFiles.create(own, fileSize, arena);
            writeHeader(handles[rank].segment(), pid, rank, size, heapSize);
            store.set(
                    key + "file/" + rank,
                    (own + "\n" + heapSize + "\n" + HostIdentity.current()).getBytes(StandardCharsets.UTF_8));
            store.barrier(key + "created");
            long[] sizes = new long[size];
            String[] hosts = new String[size];
            for (int pe = 0; pe < size; pe++) {
                String[] entry = new String(store.get(key + "file/" + pe), StandardCharsets.UTF_8).split("\n", 3);
                sizes[pe] = Long.parseLong(entry[1]);
                hosts[pe] = entry[2];
            }
            HostIdentity.requireOneHost(hosts);
            checkSameHeapSize(sizes);
            for (int pe = 0; pe < size; pe++) {
                if (pe == rank) continue;
                Path path = Path.of(new String(store.get(key + "file/" + pe), StandardCharsets.UTF_8).split("\n")[0]);
                if (!jobDir.equals(path.getParent()))
                    throw new CommException(
                            "rank " + pe + "'s shared heap file " + path + " is not in the job's folder " + jobDir);
                handles[pe] = SegmentFiles.map(path, fileSize, arena);
                checkHeader(handles[pe].segment(), pe, size, heapSize, path.toString());
            }
            store.barrier(key + "mapped");
            // Every PE mapped every file: the names can go (the mappings stay), so nothing outlives the job.
            SegmentFiles.delete(own);
            JobDirectory.removeIfEmpty(jobDir); // the last PE to unlink removes the folder
            JobDirectory.forget(jobDir);
            ShmCommunicator c = new ShmCommunicator(rank, size, arena, handles, own, heapSize, config, store);
            ok = true;
            return c;
        } finally {
            if (!ok) {
                arena.close();
                SegmentFiles.delete(own);
                closeAll(handles);
                JobDirectory.removeDead(jobDir); // also the files of PEs that died while the job started
            }
        }
    }

    private static void closeAll(SegmentFiles.Handle[] handles) {
        for (SegmentFiles.Handle h : handles) if (h != null) h.close();
    }

    private static void writeHeader(MemorySegment file, long pid, int rank, int size, long heapSize) {
        Words.setPlain(file, Control.HDR_VERSION, Control.VERSION);
        Words.setPlain(file, Control.HDR_PID, pid);
        Words.setPlain(file, Control.HDR_RANK, rank);
        Words.setPlain(file, Control.HDR_WORLD_SIZE, size);
        Words.setPlain(file, Control.HDR_HEAP_SIZE, heapSize);
        Words.setRelease(file, Control.HDR_MAGIC, Control.MAGIC);
    }

    private static void checkSameHeapSize(long[] sizes) {
        for (long s : sizes) {
            if (s != sizes[0]) {
                StringBuilder sb = new StringBuilder("PEs disagree on the symmetric heap size:");
                for (int pe = 0; pe < sizes.length; pe++)
                    sb.append(" rank ")
                            .append(pe)
                            .append(" has ")
                            .append(sizes[pe])
                            .append(" bytes;");
                throw new IllegalArgumentException(
                        sb + " set the same unicomm.heap.size (UNICOMM_HEAP_SIZE) on every PE");
            }
        }
    }

    private static void checkHeader(MemorySegment file, int pe, int size, long heapSize, String path) {
        if (Words.getAcquire(file, Control.HDR_MAGIC) != Control.MAGIC
                || Words.getPlain(file, Control.HDR_VERSION) != Control.VERSION
                || Words.getPlain(file, Control.HDR_RANK) != pe
                || Words.getPlain(file, Control.HDR_WORLD_SIZE) != size
                || Words.getPlain(file, Control.HDR_HEAP_SIZE) != heapSize)
            throw new CommException(
                    "shared heap file " + path + " is not rank " + pe + "'s heap of this job (bad header)");
    }

    /** World barrier; its leading full fence completes this PE's RMA. */
    @Override
    public void barrier() {
        world().barrier();
    }

    /** Call words, and a small collective's data, ride on the dissemination barrier: the same cost as a plain barrier. */
    @Override
    public Optional<CallAgreement> callAgreement() {
        return Optional.of(new PayloadAgreement() {
            @Override
            public long[][] exchange(Team team, long[] words) {
                return ((ShmTeam) team).exchange(words);
            }

            @Override
            public long payloadCapacity() {
                return Control.PAYLOAD_BYTES;
            }

            @Override
            public void exchange(
                    Team team, long[] words, long[][] all, MemorySegment payload, long bytes, MemorySegment[] inputs) {
                ((ShmTeam) team).exchange(words, all, payload, bytes, inputs);
            }
        });
    }

    MemorySegment control(int pe) {
        return controls[pe];
    }

    MemorySegment heapOf(int pe) {
        return heaps[pe];
    }

    MemorySegment[] heaps() {
        return heaps;
    }

    Waiter waiter() {
        return waiter;
    }

    synchronized long freeSlotMask() {
        return ~usedSlots;
    }

    synchronized void claimSlot(int slot) {
        usedSlots |= 1L << slot;
    }

    synchronized void releaseSlot(int slot) {
        usedSlots &= ~(1L << slot);
    }

    /**
     * Collective: a world barrier (no peer still reads or writes this PE's memory), then unmaps every
     * heap. Buffers still open become unusable ({@link IllegalStateException} on access). The mappings
     * are released even if the barrier fails (a peer died), and that failure is then rethrown. After
     * the job failed (a collective wait of this PE failed, or the store reports an abort) there is no
     * barrier: close releases this PE's side at once and quietly (peers keep their own mappings of
     * our file, so unmapping ours cannot hurt them).
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            if (!waiter.failed()) {
                world().barrier();
                Words.setRelease(controls[rank()], Control.HDR_LEFT, 1);
            }
        } finally {
            heap().releaseAll();
            arena.close();
            SegmentFiles.delete(ownFile);
            closeAll(handles); // our lock goes last: until here peers must see us alive
        }
    }
}
