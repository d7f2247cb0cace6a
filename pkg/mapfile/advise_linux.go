package mapfile

import "syscall"

// advise tells the kernel the mapping is read once from start to end: it
// reads ahead further and drops the pages behind sooner.
func advise(data []byte) { _ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL) }

func release(data []byte) { _ = syscall.Madvise(data, syscall.MADV_DONTNEED) }
