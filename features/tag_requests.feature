@cap:tags
Feature: Tag requests that cannot be carried out
  A tag's id may be 256 characters long (its URN stays well inside DataHub's limit of 512,
  UrnValidationUtil). Deleting a tag answers true, and the tag is gone. Recommended beyond
  DataHub, as RFC 9110 (section 15.5.1) asks of a request the server cannot make sense of:
  a tag without a name, with a longer id, or with an id holding a character that would
  break its URN (a comma, a slash, a parenthesis, a colon or a space) is refused as a bad
  request and nothing is stored; a URN that is not well formed (no id, a malformed entity
  type, a control character, more than 1024 characters) is refused as a bad request; and
  deleteTag refuses a URN that is not a tag's.

  @id:tagreq-01 @must @core
  Scenario: A tag with an id of 256 characters is made
    When the administrator creates a tag whose id is 256 characters long
    Then that tag exists with its name and description

  @id:tagreq-02 @should @core
  Scenario Outline: A tag <flaw> is refused as a bad request
    When the administrator creates a tag <flaw>
    Then the request is refused as a bad request and the tag was not stored

    Examples:
      | flaw                          |
      | without a name                |
      | whose id has 257 characters   |
      | whose id has a comma in it    |
      | whose id has a slash in it    |

  @id:tagreq-03 @must @core
  Scenario: Deleting a tag answers true, and the tag is gone
    Given the administrator has made a tag
    When the administrator deletes that tag
    Then the deletion answers true and the tag is gone

  @id:tagreq-04 @should @core
  Scenario Outline: A tag looked up by <a malformed URN> is refused as a bad request
    When the administrator looks up a tag by <a malformed URN>
    Then the answer is a GraphQL error saying the request is bad

    Examples:
      | a malformed URN                      |
      | a URN without an id                  |
      | a URN without an entity type         |
      | a URN whose entity type has a dash   |
      | a URN with a tab in its id           |
      | a URN of 1025 characters             |
      | a URN with a NUL in its id           |

  @id:tagreq-05 @should @core
  Scenario: Deleting something that is not a tag by deleteTag is refused as a bad request
    When the administrator deletes a user by deleteTag
    Then the answer is a GraphQL error saying the request is bad
