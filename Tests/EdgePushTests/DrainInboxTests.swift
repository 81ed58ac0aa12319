@testable import EdgePush
import EdgeTestSupport
import Testing

/// When the push drain is woken: only by what it asked for (issue #31), never missing an event.
@Suite struct DrainInboxTests {
    @Test func answersWaitUntilAsManyAsAskedForHaveCome() async throws {
        let inbox = DrainInbox<Int>()
        let taken = Task { await inbox.take(afterAnswers: 3) }
        try await eventually("the drain waits") { inbox.hasWaiter }
        inbox.deposit(1, urgent: false)
        inbox.deposit(2, urgent: false)
        #expect(inbox.hasWaiter, "two answers of three asked for do not wake the drain")
        inbox.deposit(3, urgent: false)
        #expect(await taken.value == [1, 2, 3])
    }

    @Test func fewerAnswersThanAskedForAreHeldForTheNextTake() async {
        let inbox = DrainInbox<Int>()
        inbox.deposit(1, urgent: false)
        inbox.deposit(2, urgent: false)
        // Two waiting, three asked for: an urgent event releases them all, in order.
        let taken = Task { await inbox.take(afterAnswers: 3) }
        inbox.deposit(99, urgent: true)
        #expect(await taken.value == [1, 2, 99])
        // Nothing is kept twice: the next take starts empty.
        inbox.deposit(4, urgent: false)
        #expect(await inbox.take(afterAnswers: 1) == [4])
    }

    @Test func anUrgentEventWakesAWaitingDrainAtOnce() async {
        let inbox = DrainInbox<String>()
        let taken = Task { await inbox.take(afterAnswers: 100) }
        inbox.deposit("answer", urgent: false)
        inbox.deposit("tick", urgent: true)
        #expect(await taken.value == ["answer", "tick"])
    }

    @Test func whatCameBeforeTheTakeIsReturnedWithoutWaiting() async {
        let inbox = DrainInbox<Int>()
        inbox.deposit(7, urgent: false)
        #expect(await inbox.take(afterAnswers: 1) == [7])
        inbox.deposit(8, urgent: true)
        #expect(await inbox.take(afterAnswers: 50) == [8])
    }
}
