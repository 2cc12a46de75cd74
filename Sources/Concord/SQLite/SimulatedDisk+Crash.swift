extension SimulatedDisk {
    /// A power loss that keeps exactly what was synced: every unsynced write, truncation, creation
    /// and deletion is lost. Connections opened before are dead (see ``SimulatedDisk``).
    public func crash() {
        var unused = SystemRandomNumberGenerator()
        crash(using: &unused, tornWriteRate: 0, reorderRate: 0)
    }

    /// A power loss: every file keeps its durable bytes, and each unsynced change may land, torn or
    /// reordered, as `generator` decides at the given rates.
    ///
    /// For each file with unsynced changes (in the order the disk made them), with probability
    /// `reorderRate` an arbitrary subset of those changes lands, in order, each with even odds;
    /// with probability `tornWriteRate` its last unsynced write is torn: its sectors before a
    /// random one land, that sector becomes garbage (wholly: bytes outside the write too) and the
    /// rest do not land, while a file the write grew keeps its new size with garbage where nothing
    /// landed. The directory's unsynced creations and deletions are reordered at `reorderRate`
    /// the same way. The generator is drawn only where a rate is above zero, and in an order
    /// fixed by the disk's history, so the same seed gives the same bytes.
    ///
    /// Afterwards the disk is powered and holds only what landed; every connection opened before
    /// is dead, and opening the files again is a relaunch.
    ///
    /// ```swift
    /// var generator = SeededGenerator(seed: seed)
    /// disk.crash(using: &generator, tornWriteRate: 0.5, reorderRate: 0.5)
    /// ```
    public func crash<Generator: RandomNumberGenerator>(
        using generator: inout Generator, tornWriteRate: Double = 0, reorderRate: Double = 0
    ) {
        withState { state in
            var directory = state.durable
            if chance(reorderRate, &generator) {
                for entry in state.unsyncedEntries where Bool.random(using: &generator) {
                    directory[entry.path] = entry.file
                }
            }
            var survivors: [Int: SimulatedFile] = [:]
            for file in Self.distinct(directory.values) {
                let content = Self.survivingContent(
                    of: file, using: &generator, tornWriteRate: tornWriteRate, reorderRate: reorderRate)
                survivors[file.id] = SimulatedFile(id: file.id, content: content)
            }
            let files = directory.mapValues { survivors[$0.id]! }
            state.current = files
            state.durable = files
            state.unsyncedEntries = []
            Self.restartProcesses(&state)
        }
    }

    /// A crash of every process using the disk (`kill -9`), not of the machine: every write stays,
    /// synced or not, but every connection opened before is dead, every lock is released and the
    /// WAL index is rebuilt from the WAL when the files are next opened.
    ///
    /// ```swift
    /// disk.killProcesses()   // the app was killed; the phone kept running
    /// let relaunched = try Replica(path: "/phone/app.sqlite", configuration: configuration)
    /// ```
    public func killProcesses() {
        withState { state in
            var renewed: [Int: SimulatedFile] = [:]
            let files =
                Array(state.current.values) + Array(state.durable.values) + state.unsyncedEntries.compactMap(\.file)
            for file in Self.distinct(files) {
                renewed[file.id] = SimulatedFile(
                    id: file.id, durable: file.durable, current: file.current, unsynced: file.unsynced)
            }
            state.current = state.current.mapValues { renewed[$0.id]! }
            state.durable = state.durable.mapValues { renewed[$0.id]! }
            state.unsyncedEntries = state.unsyncedEntries.map { (path: $0.path, file: $0.file.map { renewed[$0.id]! }) }
            Self.restartProcesses(&state)
        }
    }

    /// Writes every cached change to the disk, as the operating system does in the background within
    /// seconds and at a clean shutdown: files and the directory become durable as processes see them.
    ///
    /// Under `synchronous = OFF` nothing else ever makes a write durable (and the disk keeps every
    /// unsynced write in memory), so a simulation that passes time may call it now and then.
    ///
    /// ```swift
    /// disk.writeBack()   // a minute passed; the cache reached the disk
    /// ```
    public func writeBack() {
        withState { state in
            for file in Self.distinct(state.current.values) { file.sync() }
            state.durable = state.current
            state.unsyncedEntries = []
        }
    }

    /// Replaces every file with `image`'s, all durable, as restoring a whole-device backup does:
    /// every connection opened before is dead, and every file is a new one (a new
    /// ``fileIdentity(of:)``), so a ``Replica`` opened on a restored file knows it is a copy.
    ///
    /// ```swift
    /// disk.restore(backup)   // backup = disk.durableImage(), taken days ago
    /// ```
    public func restore(_ image: Image) {
        withState { state in
            var files: [String: SimulatedFile] = [:]
            for path in image.paths {
                files[path] = SimulatedFile(id: state.nextFileID, content: SimulatedFileContent(image.files[path]!))
                state.nextFileID += 1
            }
            state.current = files
            state.durable = files
            state.unsyncedEntries = []
            Self.restartProcesses(&state)
        }
    }

    /// Ends the generation: connections, locks and WAL indexes of the old one are gone, the power is back.
    private static func restartProcesses(_ state: inout State) {
        state.generation += 1
        state.isPoweredOff = false
        state.powerFailsAt = nil
    }

    /// Each file once, in the order the disk made them.
    private static func distinct(_ files: some Sequence<SimulatedFile>) -> [SimulatedFile] {
        var seen = Set<Int>()
        return files.filter { seen.insert($0.id).inserted }.sorted { $0.id < $1.id }
    }

    /// The bytes of `file` a power loss leaves: its durable ones and what of its unsynced changes landed.
    private static func survivingContent<Generator: RandomNumberGenerator>(
        of file: SimulatedFile, using generator: inout Generator, tornWriteRate: Double, reorderRate: Double
    ) -> SimulatedFileContent {
        var content = file.durable
        guard !file.unsynced.isEmpty else { return content }
        let reorders = chance(reorderRate, &generator)
        let tears = chance(tornWriteRate, &generator)
        let lastWrite = file.unsynced.lastIndex {
            if case .write = $0 { true } else { false }
        }
        for (index, change) in file.unsynced.enumerated() {
            if tears, index == lastWrite, case .write(let offset, let bytes) = change {
                tear(bytes, at: offset, into: &content, using: &generator)
            } else if reorders && Bool.random(using: &generator) {
                switch change {
                case .write(let offset, let bytes): content.write(bytes, at: offset)
                case .truncate(let size): content.truncate(to: size)
                }
            }
        }
        return content
    }

    /// Lands the sectors of a write before the one in flight, fills that one with garbage and grows
    /// the file over the whole write, with garbage where nothing landed.
    private static func tear<Generator: RandomNumberGenerator>(
        _ bytes: [UInt8], at offset: Int, into content: inout SimulatedFileContent, using generator: inout Generator
    ) {
        guard !bytes.isEmpty else { return }
        let end = offset + bytes.count
        let inFlight = Int.random(in: offset / sectorSize...(end - 1) / sectorSize, using: &generator)
        let landed = max(offset, inFlight * sectorSize)
        let oldCount = content.count
        content.write(Array(bytes[0..<(landed - offset)]), at: offset)
        let count = max(content.count, end)
        let sector = inFlight * sectorSize..<min((inFlight + 1) * sectorSize, count)
        content.write(garbage(sector.count, &generator), at: sector.lowerBound)
        if max(oldCount, sector.upperBound) < end {
            let grown = max(oldCount, sector.upperBound)..<end
            content.write(garbage(grown.count, &generator), at: grown.lowerBound)
        }
    }

    /// `count` random bytes, eight from each draw.
    private static func garbage<Generator: RandomNumberGenerator>(
        _ count: Int, _ generator: inout Generator
    ) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        for start in stride(from: 0, to: count, by: 8) {
            let word = generator.next()
            for index in start..<min(start + 8, count) {
                bytes[index] = UInt8(truncatingIfNeeded: word >> (8 * (index - start)))
            }
        }
        return bytes
    }
}

/// Whether an event of probability `rate` happens; draws nothing when `rate` is zero or less.
private func chance<Generator: RandomNumberGenerator>(_ rate: Double, _ generator: inout Generator) -> Bool {
    rate > 0 && Double.random(in: 0..<1, using: &generator) < rate
}
