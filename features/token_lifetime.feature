@cap:tokens
Feature: Token lifetime
  A personal access token lasts exactly as long as its creator asks: ONE_HOUR, ONE_DAY,
  ONE_WEEK (7 days), ONE_MONTH (30 days), THREE_MONTHS (90 days), SIX_MONTHS (180 days) or
  ONE_YEAR (365 days). The token's own expiry (its "exp" claim) and its description
  (createdAt, expiresAt) say the same. A NO_EXPIRY token has neither an expiry claim nor an
  expiresAt, and never expires. Once its expiry has passed, a token is refused.

  A service may refuse to make tokens that never expire: DataHub does by default since
  ACCESS_TOKEN_ALLOW_NO_EXPIRY (false unless set) was added, and older releases made them.
  Both are correct: such a request is either answered with a token that has no expiry
  anywhere, or refused as a bad request and no token is made. A service that refuses them
  has nothing to show of a token that never expires, and the scenario that would use one
  is reported as skipped, saying why.

  Checking expiry by time needs an instance of the target whose clock runs 25 hours ahead
  and shares its data: a ONE_DAY token has expired there, a ONE_MONTH token has not. Targets
  without one report those scenarios (@clock) as skipped.

  Background:
    Given Ann holds a personal access token

  @id:life-01 @must @core
  Scenario Outline: A <duration> token expires <length> after it is made
    When Ann creates a personal access token for herself that lasts <duration>
    Then the new token is described as expiring <length> after it was made
    And the new token's own expiry is the same

    Examples:
      | duration     | length   |
      | ONE_HOUR     | 1 hour   |
      | ONE_DAY      | 1 day    |
      | ONE_WEEK     | 7 days   |
      | ONE_MONTH    | 30 days  |
      | THREE_MONTHS | 90 days  |
      | SIX_MONTHS   | 180 days |
      | ONE_YEAR     | 365 days |

  @id:life-02 @must @core
  Scenario: A token that never expires has no expiry, or is not made at all
    When Ann asks for a personal access token for herself that lasts NO_EXPIRY
    Then either the new token has no expiry anywhere, or it was refused as a bad request and none was made

  @id:life-03 @must @core @cap:clock
  Scenario Outline: A <duration> token is refused once its expiry has passed
    Given Ann has created a personal access token for herself that lasts <duration>
    When a day and an hour have passed
    Then the new token is refused

    Examples:
      | duration |
      | ONE_HOUR |
      | ONE_DAY  |

  @id:life-04 @must @core @cap:clock
  Scenario Outline: A <duration> token still works before its expiry
    Given Ann has created a personal access token for herself that lasts <duration>
    When a day and an hour have passed
    Then the new token acts as Ann

    Examples:
      | duration  |
      | ONE_MONTH |
      | NO_EXPIRY |
