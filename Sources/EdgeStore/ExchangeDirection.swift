/// The two kinds of exchange with the backend whose last success is recorded (SYN-9).
public enum ExchangeDirection: String, Sendable, Hashable, CaseIterable {
    case push
    case pull
}
