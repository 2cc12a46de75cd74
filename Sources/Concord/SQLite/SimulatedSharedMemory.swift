import CSQLite

/// The WAL index that the connections to one database file on a ``SimulatedDisk`` share.
///
/// The unix VFS keeps it in the `-shm` file that every connection maps; here it is
/// memory the disk allocates, in regions whose addresses never move (SQLite keeps the pointers),
/// zeroed when made. Like the `-shm` file's content, it is rebuilt from the WAL when the first
/// connection maps it: the disk drops it when the last connection unmaps it and at every crash.
///
/// Its eight locks follow the unix VFS between connections of one process: a slot is held
/// EXCLUSIVE by one connection or SHARED by any number, never both.
///
/// ```swift
/// let memory = SimulatedSharedMemory()
/// var shared: UInt8 = 0, exclusive: UInt8 = 0
/// let region = memory.region(0, size: 32_768, extend: true)
/// _ = memory.lock(offset: 0, count: 1, flags: SQLITE_SHM_LOCK | SQLITE_SHM_SHARED, shared: &shared, exclusive: &exclusive)
/// ```
final class SimulatedSharedMemory {
    /// The number of lock slots SQLite uses (`SQLITE_SHM_NLOCK`).
    static let slotCount = 8

    private var regions: [UnsafeMutableRawPointer] = []
    /// How many connections hold each slot SHARED.
    private var readers = [Int](repeating: 0, count: slotCount)
    /// Whether a connection holds each slot EXCLUSIVE.
    private var writers = [Bool](repeating: false, count: slotCount)
    /// How many connections have it mapped.
    var mappers = 0

    deinit { for region in regions { region.deallocate() } }

    /// Region `index`, made (zeroed) with those before it when `extend`; `nil` when it does not exist and may not be made.
    func region(_ index: Int, size: Int, extend: Bool) -> UnsafeMutableRawPointer? {
        while regions.count <= index {
            guard extend else { return nil }
            let region = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            region.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            regions.append(region)
        }
        return regions[index]
    }

    /// Takes or releases slots `offset..<offset + count` for a connection whose slots are `shared` and `exclusive` (bit masks).
    ///
    /// Returns `SQLITE_BUSY` when another connection's hold forbids the lock; releasing always succeeds.
    func lock(offset: Int, count: Int, flags: Int32, shared: inout UInt8, exclusive: inout UInt8) -> Int32 {
        let slots = offset..<min(offset + count, Self.slotCount)
        let mask = slots.reduce(UInt8(0)) { $0 | UInt8(1) << $1 }
        if flags & SQLITE_SHM_UNLOCK != 0 {
            for slot in slots {
                if shared & (1 << slot) != 0 { readers[slot] -= 1 }
                if exclusive & (1 << slot) != 0 { writers[slot] = false }
            }
            shared &= ~mask
            exclusive &= ~mask
            return SQLITE_OK
        }
        if flags & SQLITE_SHM_SHARED != 0 {
            let new = slots.filter { shared & (1 << $0) == 0 }
            guard new.allSatisfy({ !writers[$0] || exclusive & (1 << $0) != 0 }) else { return SQLITE_BUSY }
            for slot in new { readers[slot] += 1 }
            shared |= mask
            return SQLITE_OK
        }
        let held = shared
        let new = slots.filter { exclusive & (1 << $0) == 0 }
        // Taken by another connection: held exclusive, or read by anyone but this connection.
        let taken = { (slot: Int) in self.writers[slot] || self.readers[slot] > (held & (1 << slot) != 0 ? 1 : 0) }
        guard !new.contains(where: taken) else { return SQLITE_BUSY }
        for slot in new { writers[slot] = true }
        exclusive |= mask
        return SQLITE_OK
    }
}
