import CSystemShims
import Glibc
import Testing

/// The allocator nghttp2 sessions use (Sources/CSystemShims/paged_blocks.c): a frame-buffer-sized block is a slot of
/// whole pages, and a slot given back starts its next life zeroed; other sizes are malloc's.
struct PagedBlocksTests {
    /// nghttp2's frame buffer: NGHTTP2_FRAMEBUF_CHUNKLEN bytes, allocated as realloc(NULL, size).
    static let frameBufferBytes = 16_384 + 9 + 1
    static let page = sysconf(Int32(_SC_PAGESIZE))

    static func isPageAligned(_ pointer: UnsafeMutableRawPointer) -> Bool {
        Int(bitPattern: pointer) % page == 0
    }

    @Test func aFrameBufferIsASlotOfPagesAndEverySlotHandedOutIsZeroed() throws {
        let first = try #require(cshim_paged_realloc(nil, Self.frameBufferBytes, nil))
        #expect(Self.isPageAligned(first))
        memset(first, 0xA5, Self.frameBufferBytes)
        cshim_paged_free(first, nil)
        // Slots given back are taken first (the last given, first), though a test running alongside may take this
        // one: whichever slots come out, written before or not, read as zeros.
        let taken = (0..<8).compactMap { _ in cshim_paged_malloc(Self.frameBufferBytes, nil) }
        #expect(taken.count == 8)
        for slot in taken {
            #expect(Self.isPageAligned(slot))
            #expect(UnsafeRawBufferPointer(start: slot, count: Self.frameBufferBytes).allSatisfy { $0 == 0 })
        }
        for slot in taken { cshim_paged_free(slot, nil) }
    }

    @Test func callocOfASlotIsZeroAndAnOverflowingCountFails() throws {
        let dirty = try #require(cshim_paged_malloc(Self.frameBufferBytes, nil))
        memset(dirty, 0xFF, Self.frameBufferBytes)
        cshim_paged_free(dirty, nil)
        let zeroed = try #require(cshim_paged_calloc(1, Self.frameBufferBytes, nil))
        #expect(UnsafeRawBufferPointer(start: zeroed, count: Self.frameBufferBytes).allSatisfy { $0 == 0 })
        cshim_paged_free(zeroed, nil)
        #expect(cshim_paged_calloc(Int.max / 2, 4, nil) == nil)
    }

    @Test func reallocMovesASlotsContentWhenItNoLongerFits() throws {
        let slot = try #require(cshim_paged_malloc(Self.frameBufferBytes, nil))
        for index in 0..<Self.frameBufferBytes { slot.storeBytes(of: UInt8(index % 251), toByteOffset: index, as: UInt8.self) }
        // Still within the slot: the same block.
        #expect(cshim_paged_realloc(slot, Self.frameBufferBytes + 10, nil) == slot)
        let grown = try #require(cshim_paged_realloc(slot, 100_000, nil))
        #expect(grown != slot)
        let grownBytes = UnsafeRawBufferPointer(start: grown, count: Self.frameBufferBytes)
        #expect(grownBytes.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
        let shrunk = try #require(cshim_paged_realloc(grown, 64, nil))
        #expect(UnsafeRawBufferPointer(start: shrunk, count: 64).enumerated().allSatisfy { $0.element == UInt8($0.offset) })
        cshim_paged_free(shrunk, nil)
    }

    @Test func otherSizesAreMallocsAndFreeTakesThemAndNull() throws {
        let small = try #require(cshim_paged_malloc(64, nil))
        cshim_paged_free(small, nil)
        cshim_paged_free(nil, nil)
        let large = try #require(cshim_paged_malloc(1 << 20, nil))
        memset(large, 1, 1 << 20)
        cshim_paged_free(large, nil)
    }
}
