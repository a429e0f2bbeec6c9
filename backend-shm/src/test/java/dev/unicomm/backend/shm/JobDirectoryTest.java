package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job's private folder: a name nobody can derive, mode 0700, owned by the job's user, checked before use. */
class JobDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void aJobFolderHasARandomNameAndOnlyItsUserCanEnterIt() throws Exception {
        Path a = JobDirectory.create(dir), b = JobDirectory.create(dir);
        assertTrue(a.getFileName().toString().matches("unicomm-job-[0-9a-f]{32}"), a.toString());
        assertNotEquals(a.getFileName(), b.getFileName(), "two jobs never share a name");
        // 128 random bits: the two names share no long common run (a counter or a job id would)
        String ha = a.getFileName().toString().substring(12),
                hb = b.getFileName().toString().substring(12);
        int same = 0;
        for (int i = 0; i < 32; i++) if (ha.charAt(i) == hb.charAt(i)) same++;
        assertTrue(same < 16, ha + " and " + hb + " agree on " + same + " of 32 digits");
        assertEquals(
                "rwx------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(a, LinkOption.NOFOLLOW_LINKS)));
        Path probe = Files.createTempFile(dir, "uid", ".probe");
        assertEquals(
                Files.getAttribute(probe, "unix:uid"), Files.getAttribute(a, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        assertEquals(a, JobDirectory.join(a.toString()), "another rank accepts the private folder");
        JobDirectory.removeIfEmpty(a);
        JobDirectory.removeIfEmpty(b);
        assertTrue(Files.notExists(a) && Files.notExists(b));
    }

    @Test
    void aRankRefusesAFolderOthersCouldWriteOrALinkOrAForeignName() throws Exception {
        Path open = Files.createDirectory(dir.resolve("unicomm-job-" + "0".repeat(32)));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        CommException e = assertThrows(CommException.class, () -> JobDirectory.join(open.toString()));
        assertTrue(
                e.getMessage().contains("is not private to this user")
                        && e.getMessage().contains("rwxrwxrwx"),
                e.getMessage());

        Path target = JobDirectory.create(dir);
        Path link = Files.createSymbolicLink(dir.resolve("unicomm-job-" + "1".repeat(32)), target);
        e = assertThrows(CommException.class, () -> JobDirectory.join(link.toString()));
        assertTrue(e.getMessage().contains("a symbolic link"), e.getMessage());

        e = assertThrows(CommException.class, () -> JobDirectory.join("/etc"));
        assertTrue(e.getMessage().contains("which is not one"), e.getMessage());
        JobDirectory.removeIfEmpty(target);
    }

    @Test
    void aSweepTakesThisUsersDeadJobFoldersAndNothingElse() throws Exception {
        Path dead = JobDirectory.create(dir);
        JobDirectory.forget(dead); // as if its JVM had died
        String id = dead.getFileName().toString().substring(JobDirectory.PREFIX.length());
        Files.write(dead.resolve(SegmentFiles.name(id, 0, 1)), new byte[8]); // nobody holds its lock
        Path young = JobDirectory.create(dir); // rank 0 of a starting job, before its file exists
        JobDirectory.forget(young);
        Path other = Files.createDirectory(
                dir.resolve("unicomm-job-" + "2".repeat(32)),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setLastModifiedTime(other, java.nio.file.attribute.FileTime.fromMillis(0));
        boolean root = RootOnly.root();
        if (root) assertEquals(0, RootOnly.run(java.util.List.of("chown", "nobody", other.toString())));

        java.util.List<Path> removed = JobDirectory.reclaimStale(dir);

        assertTrue(removed.contains(dead) && Files.notExists(dead), "a folder whose PEs all died goes: " + removed);
        assertTrue(Files.isDirectory(young), "an empty folder younger than the grace is a job starting");
        if (root) assertTrue(Files.isDirectory(other), "another user's folder is never touched, even by root");
        else assertTrue(removed.contains(other), "an old empty folder of this user goes");
        JobDirectory.removeIfEmpty(young);
    }
}
