@cap:tokens
Feature: Listing access tokens by condition, as datahub-gc lists the expired ones
  listAccessTokens filters tokens by any of DataHub's conditions, not only by equality:
  datahub-gc, DataHub's garbage collection source, finds the tokens to revoke by listing
  those whose expiresAt is LESS_THAN the time it runs, ten at a time, and revokes each. A
  filter names a field a token has (name, actorUrn, ownerUrn, createdAt, expiresAt), a
  condition (EQUAL, IN, IEQUAL, CONTAIN, START_WITH, END_WITH, EXISTS, GREATER_THAN,
  GREATER_THAN_OR_EQUAL_TO, LESS_THAN, LESS_THAN_OR_EQUAL_TO) and values, and may be
  negated; times compare as numbers (epoch milliseconds). A token that never expires has no
  expiry to compare.

  Who may list which tokens does not change: a manager (MANAGE_ACCESS_TOKENS) any, anyone
  else only their own, by an ownerUrn filter naming themselves. DataHub's token lists come
  from its search index: a token shows in a list within the propagation window. While the
  index still names a token someone has just revoked, a list that holds it fails (DataHub
  loads each token the index names), so on a target others use the administrator's
  listings here narrow to the scenario's own person's tokens.

  Background:
    Given Ann holds a personal access token

  @id:toklist-01 @must @smoke
  Scenario: The tokens that expire before a moment are listed as datahub-gc lists the expired ones
    Given the administrator has created for Ann a token that lasts an hour and one that lasts a month
    When the administrator lists Ann's tokens that expire within two hours, as datahub-gc lists the expired ones
    Then the list holds the token that lasts an hour, and not the one that lasts a month

  @id:toklist-02 @must @core
  Scenario: The tokens that do not expire before a moment are listed by the negated condition
    Given the administrator has created for Ann a token that lasts an hour and one that lasts a month
    When the administrator lists Ann's tokens that do not expire within two hours
    Then the list holds the token that lasts a month, and not the one that lasts an hour

  @id:toklist-03 @must @core
  Scenario Outline: Tokens are listed by <condition> a part of their name
    Given the administrator has created for Ann a token that lasts an hour and one that lasts a month
    When the administrator lists Ann's tokens whose name <condition> that of the token that lasts an hour
    Then the list holds the token that lasts an hour, and not the one that lasts a month

    Examples:
      | condition   |
      | contains    |
      | starts with |
      | ends with   |

  @id:toklist-04 @must @core
  Scenario: Someone may list their own tokens by expiry
    Given Ann has created for herself a token that lasts an hour and one that lasts a month
    When Ann lists her own tokens that expire within two hours
    Then the list holds the token that lasts an hour, and not the one that lasts a month

  @id:toklist-05 @must @core
  Scenario: Someone who may list only their own tokens is refused a listing by expiry alone
    Given Ann has created for herself a token that lasts an hour and one that lasts a month
    When Ann lists the tokens that expire within two hours, as datahub-gc lists the expired ones
    Then Ann is rejected as unauthorized

  @id:toklist-06 @should @core
  Scenario Outline: A token listing <flaw> is refused as a bad request
    When the administrator lists tokens <flaw>
    Then the answer is a GraphQL error saying the request is bad

    Examples:
      | flaw                                        |
      | whose expiry is before something not a time |
      | by a range without a bound                  |
