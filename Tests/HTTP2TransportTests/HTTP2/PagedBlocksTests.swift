import CSystemShims
import Glibc
import Testing

/// The allocator nghttp2 sessions use (Sources/CSystemShims/paged_blocks.c): a frame buffer, which nghttp2 makes with
/// realloc(NULL, size), is a slot of whole pages listed by the session's owner; a slot given back, and an owner's
/// slots released while idle, read as zeros; everything else is malloc's.
struct PagedBlocksTests {
    /// nghttp2's frame buffer: NGHTTP2_FRAMEBUF_CHUNKLEN bytes.
    static let frameBufferBytes = 16_384 + 9 + 1
    static let page = sysconf(Int32(_SC_PAGESIZE))

    static func isPageAligned(_ pointer: UnsafeMutableRawPointer) -> Bool {
        Int(bitPattern: pointer) % page == 0
    }

    static func isZero(_ pointer: UnsafeMutableRawPointer) -> Bool {
        UnsafeRawBufferPointer(start: pointer, count: frameBufferBytes).allSatisfy { $0 == 0 }
    }

    @Test func aFrameBufferIsASlotOfPagesAndEverySlotHandedOutIsZeroed() throws {
        let owner = try #require(cshim_paged_owner_new())
        defer { cshim_paged_owner_free(owner) }
        let first = try #require(cshim_paged_realloc(nil, Self.frameBufferBytes, UnsafeMutableRawPointer(owner)))
        #expect(Self.isPageAligned(first))
        memset(first, 0xA5, Self.frameBufferBytes)
        cshim_paged_free(first, UnsafeMutableRawPointer(owner))
        // Slots given back are taken first (the last given, first), though a test running alongside may take this
        // one: whichever slots come out, written before or not, read as zeros. An owner lists four.
        let taken = (0..<4).compactMap { _ in
            cshim_paged_realloc(nil, Self.frameBufferBytes, UnsafeMutableRawPointer(owner))
        }
        #expect(taken.count == 4)
        for slot in taken {
            #expect(Self.isPageAligned(slot))
            #expect(Self.isZero(slot))
        }
        for slot in taken { cshim_paged_free(slot, UnsafeMutableRawPointer(owner)) }
    }

    @Test func anOwnersReleasedBuffersReadAsZerosAndStayUsable() throws {
        let owner = try #require(cshim_paged_owner_new())
        defer { cshim_paged_owner_free(owner) }
        let buffer = try #require(cshim_paged_realloc(nil, Self.frameBufferBytes, UnsafeMutableRawPointer(owner)))
        memset(buffer, 0x5A, Self.frameBufferBytes)
        cshim_paged_owner_release(owner)
        #expect(Self.isZero(buffer))
        memset(buffer, 0x33, Self.frameBufferBytes)
        #expect(UnsafeRawBufferPointer(start: buffer, count: Self.frameBufferBytes).allSatisfy { $0 == 0x33 })
        cshim_paged_free(buffer, UnsafeMutableRawPointer(owner))
        // Freed, it is no longer the owner's: releasing again touches nothing it does not hold.
        cshim_paged_owner_release(owner)
    }

    @Test func reallocMovesASlotsContentWhenItNoLongerFits() throws {
        let owner = try #require(cshim_paged_owner_new())
        defer { cshim_paged_owner_free(owner) }
        let slot = try #require(cshim_paged_realloc(nil, Self.frameBufferBytes, UnsafeMutableRawPointer(owner)))
        for index in 0..<Self.frameBufferBytes { slot.storeBytes(of: UInt8(index % 251), toByteOffset: index, as: UInt8.self) }
        // Still within the slot: the same block.
        #expect(cshim_paged_realloc(slot, Self.frameBufferBytes + 10, UnsafeMutableRawPointer(owner)) == slot)
        let grown = try #require(cshim_paged_realloc(slot, 100_000, UnsafeMutableRawPointer(owner)))
        #expect(grown != slot)
        let grownBytes = UnsafeRawBufferPointer(start: grown, count: Self.frameBufferBytes)
        #expect(grownBytes.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
        let shrunk = try #require(cshim_paged_realloc(grown, 64, UnsafeMutableRawPointer(owner)))
        #expect(UnsafeRawBufferPointer(start: shrunk, count: 64).enumerated().allSatisfy { $0.element == UInt8($0.offset) })
        cshim_paged_free(shrunk, UnsafeMutableRawPointer(owner))
    }

    @Test func mallocCallocAndOwnerlessBlocksAreMallocs() throws {
        // Blocks nghttp2 keeps its own bookkeeping in (malloc, calloc) are never slots, whatever their size.
        let block = try #require(cshim_paged_malloc(Self.frameBufferBytes, nil))
        memset(block, 1, Self.frameBufferBytes)
        cshim_paged_free(block, nil)
        let zeroed = try #require(cshim_paged_calloc(1, Self.frameBufferBytes, nil))
        #expect(Self.isZero(zeroed))
        cshim_paged_free(zeroed, nil)
        #expect(cshim_paged_calloc(Int.max / 2, 4, nil) == nil)
        let ownerless = try #require(cshim_paged_realloc(nil, Self.frameBufferBytes, nil))
        memset(ownerless, 2, Self.frameBufferBytes)
        cshim_paged_free(ownerless, nil)
        cshim_paged_free(nil, nil)
    }
}
