@cap:tokens
Feature: Token requests that cannot be carried out
  What the token operations do with requests that make no sense. A token's name may be 256
  characters long and its description 2048, and a page of tokens may hold 1000; DataHub
  does exactly that much (it stores what it is given and pages its search as asked).
  Beyond that, as RFC 9110 (section 15.5.1) recommends for a request the server cannot
  make sense of, the request is refused as a bad request and nothing changes: a token
  without a name, with a longer name or description, or for a user who does not exist; a
  list by a field tokens do not have, from a negative position, or of more than 1000; a
  revocation naming no token; and metadata asked for something that is not a token.
  Revoking a token that does not exist is never answered as done: a manager is told it
  was not found, anyone else is refused. A revoked token has no metadata any more
  (DataHub's StatefulTokenService refuses a revoked token).

  Background:
    Given Ann is a user

  @id:tokreq-01 @must @core
  Scenario: A token with a name of 256 characters and a description of 2048 is made
    When the administrator creates a token for Ann with a name of 256 characters and a description of 2048
    Then the new token is described with that name and description

  @id:tokreq-02 @should @core
  Scenario Outline: A token <flaw> is refused as a bad request
    When the administrator creates a token for Ann <flaw>
    Then the request is refused as a bad request and no token was made

    Examples:
      | flaw                                  |
      | without a name                        |
      | with a name of 257 characters         |
      | with a description of 2049 characters |

  @id:tokreq-03 @should @core
  Scenario: A token for a user who does not exist is refused as a bad request
    When the administrator creates a token for a user who does not exist
    Then the request is refused as a bad request and no token was made

  @id:tokreq-04 @must @core
  Scenario: A page of 1000 tokens may be asked for
    When the administrator lists tokens 1000 at a time
    Then the list is answered

  @id:tokreq-05 @should @core
  Scenario Outline: Listing tokens <how> is refused as a bad request
    When the administrator lists tokens <how>
    Then the answer is a GraphQL error saying the request is bad

    Examples:
      | how                            |
      | by a field tokens do not have  |
      | from a negative position       |
      | with a negative count          |
      | 1001 at a time                 |

  @id:tokreq-06 @should @core
  Scenario: A manager revoking a token that does not exist is told it was not found
    When the administrator revokes a token that does not exist
    Then the answer says no such token was found

  @id:tokreq-07 @should @core
  Scenario: Someone revoking a token that does not exist is refused
    Given Ann holds a personal access token
    When Ann revokes a token that does not exist
    Then the revocation is refused

  @id:tokreq-08 @should @core
  Scenario: A revocation that names no token is refused as a bad request
    When the administrator revokes a token without naming it
    Then the answer is a GraphQL error saying the request is bad

  @id:tokreq-09 @should @core
  Scenario: Asking for the metadata of something that is not a token is refused as a bad request
    When the administrator asks for the metadata of something that is not a token
    Then the answer is a GraphQL error saying the request is bad

  @id:tokreq-10 @must @core
  Scenario: A revoked token has no metadata
    Given the administrator has created a personal access token for Ann
    And the administrator has revoked the new token
    When the administrator asks for the metadata of the new token
    Then no metadata is given

  @id:tokreq-11 @should @core
  Scenario: A new token names DataHub's metadata service as its issuer
    Given the administrator has created a personal access token for Ann
    Then the new token names datahub-metadata-service as its issuer

  @id:tokreq-12 @must @core
  Scenario: Tokens are listed a page at a time
    Given the administrator has created three tokens for Ann that last different times
    When the administrator lists Ann's tokens one at a time
    Then each of the first three pages holds one of the three tokens, a different one each time
    And the page after them is empty but counts all three

  @id:tokreq-13 @must @core
  Scenario: A page past someone's only token is empty but still counts it
    Given the administrator has created a personal access token for Bob
    When the administrator lists Bob's tokens from the second on
    Then the page is empty but counts one token

  @id:tokreq-14 @must @core
  Scenario: A revoked token is refused with 401
    Given the administrator has created a personal access token for Ann
    And the administrator has revoked the new token
    When someone asks who they are with the revoked token
    Then the answer has status 401

  @id:tokreq-15 @must @core
  Scenario: Someone lists their own tokens leaving out those of one name
    Given Ann holds a personal access token
    And Ann has created a personal access token for herself named "Test Session Token"
    And Ann has created a personal access token for herself named "my token"
    When Ann lists her own tokens, leaving out those named "Test Session Token"
    Then the list holds the token named "my token" and no other, and counts one

  @id:tokreq-16 @should @core
  Scenario: Listing the tokens someone does not own, by a negated owner filter, is refused
    Given Ann holds a personal access token
    And the administrator has created a personal access token for Bob
    When Ann lists the tokens whose owner is not Ann
    Then Ann is rejected as unauthorized
