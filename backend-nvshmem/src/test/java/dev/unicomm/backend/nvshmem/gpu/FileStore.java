package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.spi.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A rendezvous store in a directory shared by the ranks of one host (tests and the GPU harness,
 * where the TCP store may not be on the class path). Values are files written atomically; counters
 * are updated under a file lock; every wait is bounded and fails on an abort file.
 */
public final class FileStore implements Store {
    private final Path dir;
    private final int rank, size;
    private final Duration timeout;

    public FileStore(Path dir, int rank, int size, Duration timeout) {
        this.dir = dir;
        this.rank = rank;
        this.size = size;
        this.timeout = timeout;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path file(String key) {
        return dir.resolve("k_" + URLEncoder.encode(key, StandardCharsets.UTF_8));
    }

    @Override
    public void set(String key, byte[] value) {
        try {
            Path tmp = dir.resolve(".tmp-" + rank + "-" + System.nanoTime());
            Files.write(tmp, value);
            try {
                Files.move(tmp, file(key), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file(key), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public byte[] get(String key) {
        return get(key, timeout);
    }

    @Override
    public byte[] get(String key, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        Path f = file(key);
        while (true) {
            checkAbort();
            try {
                if (Files.exists(f)) return Files.readAllBytes(f);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (System.nanoTime() > deadline) throw new CommTimeoutException("file store get('" + key + "')", limit);
            LockSupport.parkNanos(200_000);
        }
    }

    private void checkAbort() {
        Path a = dir.resolve("ABORT");
        if (Files.exists(a)) {
            String why;
            try {
                why = Files.readString(a);
            } catch (IOException e) {
                why = "unreadable abort reason";
            }
            int sep = why.indexOf(':');
            throw new CommAbortedException(Integer.parseInt(why.substring(0, sep)), why.substring(sep + 1));
        }
    }

    @Override
    public void checkHealthy() {
        checkAbort();
    }

    @Override
    public long add(String key, long delta) {
        try (FileChannel ch = FileChannel.open(
                        dir.resolve("counters.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = ch.lock()) {
            Path f = file(key);
            long v = (Files.exists(f) ? Long.parseLong(Files.readString(f).trim()) : 0) + delta;
            set(key, Long.toString(v).getBytes(StandardCharsets.UTF_8));
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean contains(String key) {
        return Files.exists(file(key));
    }

    @Override
    public void barrier(String name) {
        String key = "barrier/" + name;
        add(key, 1);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (Long.parseLong(new String(get(key), StandardCharsets.UTF_8).trim()) < size) {
            checkAbort();
            if (System.nanoTime() > deadline)
                throw new CommTimeoutException("file store barrier('" + name + "')", timeout);
            LockSupport.parkNanos(200_000);
        }
    }

    @Override
    public void abort(String reason) {
        try {
            Files.writeString(dir.resolve("ABORT"), rank + ":" + reason, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {}

    /** For callers that want the raw bytes of a long. */
    static byte[] bytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }
}
